"""Single-op functions run on pto-isa's CPU simulator, through ptoas
(docs/semantics.md).

What a pto op computes on the hardware is what ptoas's C++ for it does: so
ptoas itself writes that C++. Each case is a `func.func` whose arguments
are the op's tiles (`!pto.tile_buf`) and scalars and whose body is the op;
many such functions form one module, which `pto-test-opt` lowers through
ptoas's own pipeline and EmitC to C++ (`pto-test-translate-to-cpp`): one
C++ function per case, taking pto-isa `Tile<...>` values and calling
`TADD(...)`, `TCVT(...)`, ... as ptoas would.

A runner (`RUNNER`, below, and a caller written per function from the
function's own parameter types) calls each function with tiles it builds
from those types: it reads each tile's valid
shape and every element (by logical row and column, `SetElement`) from an
input file, calls the function and writes every element of every tile
back (`GetElement`). One program holds a whole batch; it is compiled
against pto-isa's CPU simulator (`-D__CPU_SIM`, with `-DNDEBUG`: the
simulator's `assert`s would stop a batch where the ISA gives IEEE results,
a float division by zero) and cached by the hash of its source, with the
pto-isa headers precompiled once per compiler and include directory.

File formats (little endian): a run is a sequence of calls, each the case
index (u32), then per parameter in order for a tile its valid rows and
columns (u32, u32) and for a scalar its bytes, then per tile parameter in
order its Rows*Cols elements row by row; the output is, per call and tile
parameter in order, its Rows*Cols elements row by row.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from . import oracles

CXX_FLAGS = ("-std=c++20", "-D__CPU_SIM", "-DNDEBUG", "-w", "-O0")
"""-O0: the tiles are small, compiling is what costs (a TCVT instantiation takes a tenth of a second)."""
TRANSLATE_PIPELINE = "builtin.module(pto-ptoas-pipeline{{arch={arch} level=level2 sync=none emitc=true}},pto-test-translate-to-cpp)"
COMPILE_TIMEOUT = 600
RUN_TIMEOUT = 300

SIM_GAPS = r"""
// pto-isa declares TCVT with a scratch tile (what ptoas emits for a
// narrowing conversion without saturation) but only its NPU code defines
// it: on the CPU simulator it is the conversion without the scratch, which
// the NPU only uses as working space.
namespace pto {
template <typename TileDataD, typename TileDataS, typename TmpTileData>
PTO_INTERNAL void TCVT_IMPL(TileDataD& dst, TileDataS& src, TmpTileData&, RoundMode mode, SaturationMode satMode, bool needSetCtrl)
{
    TCVT_IMPL(dst, src, mode, satMode, needSetCtrl);
}
template <typename TileDataD, typename TileDataS, typename TmpTileData>
PTO_INTERNAL void TCVT_IMPL(TileDataD& dst, TileDataS& src, TmpTileData&, RoundMode mode, bool needSetCtrl)
{
    TCVT_IMPL(dst, src, mode, needSetCtrl);
}
// pto-isa's TCI with a scratch tile (what ptoas emits for tci) has no CPU
// definition either: the same, without the scratch.
template <typename TileData, typename TileDataTmp, typename T, int descending>
PTO_INTERNAL void TCI_IMPL(TileData& dst, T start, TileDataTmp&)
{
    TCI_IMPL<TileData, T, descending>(dst, start);
}
}  // namespace pto

// What ptoas's driver turns its marker calls into when it prints C++
// (PTOAS tools/ptoas/ptoas.cpp, rewriteTileGetSetValueMarkers): member calls.
#define PTOAS__TILE_SET_VALUE(dst, offset, val) (dst).SetValue((offset), (val))
#define PTOAS__TILE_GET_VALUE(src, offset) (src).GetValue((offset))
#define PTOAS__TILE_DATA(obj) (obj).data()
#define PTOAS__TILE_SET_VALIDSHAPE(obj, r, c) (obj).SetValidShape((r), (c))
#define PTOAS__TILE_GET_VALID_ROW(obj) (obj).GetValidRow()
#define PTOAS__TILE_GET_VALID_COL(obj) (obj).GetValidCol()
"""

RUNNER = r"""
namespace pto_oracle {
struct Reader {
  const unsigned char* p;
  const unsigned char* end;
  template <class T> T get() {
    T v;
    if (p + sizeof(T) > end) { std::fprintf(stderr, "pto_oracle: the input ends early\n"); std::exit(2); }
    std::memcpy(&v, p, sizeof(T));
    p += sizeof(T);
    return v;
  }
};
struct Writer {
  std::vector<unsigned char> bytes;
  template <class T> void put(const T& v) {
    const unsigned char* b = reinterpret_cast<const unsigned char*>(&v);
    bytes.insert(bytes.end(), b, b + sizeof(T));
  }
};
// The case's vec tiles go from 64 KiB up: the scratch ptoas's planner adds
// for a vector op (a tci or tcvt tmp) sits at the bottom of vec.
constexpr std::uintptr_t kFirstVecAddr = 64 * 1024;
constexpr std::uintptr_t kUnset = ~std::uintptr_t(0);
inline std::uintptr_t next_addr[16];

template <class T> T make_tile(unsigned vr, unsigned vc) {
  if constexpr (T::ValidRow == pto::DYNAMIC && T::ValidCol == pto::DYNAMIC) { T t(vr, vc); return t; }
  else if constexpr (T::ValidRow == pto::DYNAMIC) { T t(vr); return t; }
  else if constexpr (T::ValidCol == pto::DYNAMIC) { T t(vc); return t; }
  else { T t; return t; }
}
// Each tile at its own bytes of its space (512-byte aligned, as the cube
// spaces ask), every element set by logical position.
template <class T> void place(T& t, Reader& in) {
  std::uintptr_t& a = next_addr[static_cast<int>(T::Loc)];
  if (a == kUnset) a = T::Loc == pto::TileType::Vec ? kFirstVecAddr : 0;
  TASSIGN(t, a);
  a += (T::GetSizeInBytes() + 511) / 512 * 512;
  for (int r = 0; r < T::Rows; ++r)
    for (int c = 0; c < T::Cols; ++c) t.SetElement(r, c, in.get<typename T::DType>());
}
template <class T> void collect(T& t, Writer& out) {
  for (int r = 0; r < T::Rows; ++r)
    for (int c = 0; c < T::Cols; ++c) out.put<typename T::DType>(t.GetElement(r, c));
}
inline void reset() {
  for (auto& a : next_addr) a = kUnset;
}
}  // namespace pto_oracle
"""

MAIN = r"""
int main(int argc, char** argv) {
  if (argc != 3) { std::fprintf(stderr, "usage: %s IN OUT\n", argv[0]); return 2; }
  pto::NPU_MEMORY_INIT(pto::NPUArch::{arch});
  std::FILE* f = std::fopen(argv[1], "rb");
  if (!f) { std::perror(argv[1]); return 2; }
  std::vector<unsigned char> data;
  unsigned char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) data.insert(data.end(), buf, buf + n);
  std::fclose(f);
  pto_oracle::Reader in{data.data(), data.data() + data.size()};
  pto_oracle::Writer out;
  while (in.p < in.end) {
    unsigned k = in.get<unsigned>();
    if (k >= sizeof(cases) / sizeof(cases[0])) { std::fprintf(stderr, "pto_oracle: no case %u\n", k); return 2; }
    cases[k](in, out);
  }
  std::FILE* g = std::fopen(argv[2], "wb");
  if (!g) { std::perror(argv[2]); return 2; }
  std::fwrite(out.bytes.data(), 1, out.bytes.size(), g);
  return std::fclose(g) == 0 ? 0 : 2;
}
"""


class SimError(RuntimeError):
    """The simulator could not run a batch (ptoas refused to translate it,
    the C++ does not compile, the program failed)."""


@dataclass(frozen=True)
class Program:
    """A compiled batch: the binary and the function names in case order."""

    binary: Path
    functions: tuple[str, ...]


def cache_dir() -> Path:
    root = os.environ.get("PTO_ISA_CACHE") or os.path.join(tempfile.gettempdir(), f"pto-isa-cache-{os.getuid()}")
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass
class Translation:
    """ptoas's C++ for a batch: what every function needs (its preamble),
    each case's function, and the cases ptoas's pipeline refused."""

    preamble: str
    functions: dict[str, str]
    refused: dict[str, str]


def translate(tool: oracles.Tool, modules: dict[str, str], arch: str) -> Translation:
    """ptoas's C++ for single-function modules (name -> module text), all
    in one run (`--split-input-file`); `arch` as pto-test-opt names it."""
    names = list(modules)
    joined, starts = oracles.join_chunks([modules[n] for n in names])
    args = [f"--pto-arch={arch}", f"--pass-pipeline={TRANSLATE_PIPELINE.format(arch=arch)}", "--split-input-file", "-o", os.devnull, "-"]
    result = oracles.run(tool.require(), args, joined)
    refused: dict[str, str] = {}
    for verdict_name, verdict in zip(names, oracles._verdicts(oracles.ToolRun(1, "", result.err), starts, [0] + [1] * (len(names) - 1))):
        if verdict.errors and not verdict.errors[0].startswith(("no output", result.err.strip()[:40] or "\0")):
            refused[verdict_name] = verdict.first_error
    blocks: dict[str, None] = {}
    functions: dict[str, str] = {}
    for part in re.split(r'^#include "pto/pto-inst.hpp"\n', result.out, flags=re.M):
        preamble, found = split_functions(part)
        functions.update(found)
        if found:
            for block in re.split(r"\n\n+", preamble.strip()):
                blocks.setdefault(block, None)
    missing = [n for n in names if n not in functions and n not in refused]
    if missing:
        raise SimError(f"pto-test-opt gave no C++ for {', '.join(missing[:5])}:\n{result.err[-4000:]}")
    return Translation("\n\n".join(blocks) + "\n\n", functions, refused)


_FUNCTION = re.compile(r"^AICORE void (\w+)\(", re.M)


@cache
def headers_fingerprint(include: str) -> str:
    """The state of pto-isa's headers (each file's path, size and mtime):
    part of every cache key, so a replaced or touched checkout rebuilds the
    precompiled header (clang refuses a PCH older than its headers) and the
    programs compiled from it."""
    digest = hashlib.sha256()
    for root, dirs, files in os.walk(include):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            st = os.stat(path)
            digest.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return digest.hexdigest()[:16]


def _pch(toolchain: oracles.IsaToolchain) -> Path:
    """pto-isa's headers, precompiled once per compiler and include path."""
    key = hashlib.sha256(f"{toolchain.cxx}\0{toolchain.include}\0{headers_fingerprint(toolchain.include)}\0{CXX_FLAGS}".encode()).hexdigest()[:20]
    pch = cache_dir() / f"pto-inst-{key}.pch"
    if pch.exists():
        return pch
    header = cache_dir() / f"pto-inst-{key}.hpp"
    # <cstdint> first: pto/common/type.hpp uses uint8_t without it
    includes = ("cstdint", "cstdio", "cstdlib", "cstring", "vector", "pto/pto-inst.hpp")
    header.write_text("".join(f"#include <{name}>\n" for name in includes))
    tmp = pch.with_suffix(f".{os.getpid()}.tmp")
    _compile(toolchain, ["-x", "c++-header", str(header), "-o", str(tmp)], "the pto-isa headers")
    os.replace(tmp, pch)
    return pch


def _compile(toolchain: oracles.IsaToolchain, args: list[str], what: str, check: bool = True) -> str | None:
    """Compile; None on success, else (check=False) the compiler's errors."""
    cmd = [toolchain.cxx, *CXX_FLAGS, "-I", toolchain.include, *args]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT)
    except subprocess.TimeoutExpired as e:
        raise SimError(f"compiling {what} took over {COMPILE_TIMEOUT} s") from e
    if done.returncode == 0:
        return None
    if check:
        raise SimError(f"{os.path.basename(toolchain.cxx)} could not compile {what}:\n{done.stderr[-6000:]}")
    return done.stderr


def split_functions(cpp: str) -> tuple[str, dict[str, str]]:
    """ptoas's C++ as its preamble and each function's definition."""
    starts = [m.start() for m in _FUNCTION.finditer(cpp)]
    if not starts:
        return cpp, {}
    functions = {}
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(cpp)
        functions[_FUNCTION.match(cpp, start).group(1)] = cpp[start:end]
    return cpp[: starts[0]], functions


def parameters(function: str) -> list[str]:
    """The parameter types of one of ptoas's C++ functions."""
    head = function[function.index("(") + 1 :]
    params, depth, start = [], 0, 0
    for k, ch in enumerate(head):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            if depth == 0:
                params.append(head[start:k])
                break
            depth -= 1
        elif ch == "," and depth == 0:
            params.append(head[start:k])
            start = k + 1
    return [p.strip().rsplit(" ", 1)[0] for p in params if p.strip()]


def _caller(name: str, function: str) -> str:
    """The runner's call of one function: build its tiles and scalars from
    the input, call it, write its tiles out (written per function: a
    generic template over the parameter pack costs far more to compile)."""
    types = parameters(function)
    lines = [f"static void call_{name}(pto_oracle::Reader& in, pto_oracle::Writer& out) {{", "  pto_oracle::reset();"]
    tiles = []
    for k, t in enumerate(types):
        if t.startswith("Tile<"):
            lines.append(f"  using T{k} = {t};")
            lines.append(f"  unsigned rows_{k} = in.get<unsigned>(), cols_{k} = in.get<unsigned>();")
            lines.append(f"  T{k} a{k} = pto_oracle::make_tile<T{k}>(rows_{k}, cols_{k});")
            tiles.append(k)
        else:
            lines.append(f"  {t} a{k} = in.get<{t}>();")
    lines += [f"  pto_oracle::place(a{k}, in);" for k in tiles]
    lines.append(f"  {name}({', '.join(f'a{k}' for k in range(len(types)))});")
    lines += [f"  pto_oracle::collect(a{k}, out);" for k in tiles]
    lines.append("}")
    return "\n".join(lines)


def program_source(preamble: str, functions: dict[str, str], arch: str) -> str:
    """The batch's C++ program: ptoas's functions, the runner, a caller per
    function and the table of callers in order."""
    body = preamble.replace('#include "pto/pto-inst.hpp"', "") + "".join(functions.values())
    callers = "\n".join(_caller(name, text) for name, text in functions.items())
    table = ",\n".join(f"  call_{f}" for f in functions)
    return (
        "// ptoas's code is compiled for both cores: each function is one kernel\n"
        "#define __DAV_VEC__ 1\n#define __DAV_CUBE__ 1\n"
        f"{SIM_GAPS}\n{body}\n{RUNNER}\n{callers}\n"
        f"using PtoOracleCase = void (*)(pto_oracle::Reader&, pto_oracle::Writer&);\nstatic PtoOracleCase cases[] = {{\n{table}\n}};\n"
        + MAIN.replace("{arch}", "A5" if arch == "a5" else "A2A3")
    )


_ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):\d+: error: (?P<message>.*)$")
_NOTE_AT = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):\d+: note: ")


def refusals(stderr: str, source_path: str, source: str) -> dict[str, str]:
    """Which functions of a batch the compiler refused, with the first
    error each caused (a static_assert of pto-isa, usually): each error is
    blamed on the batch line its chain of notes reaches."""
    starts = [(source.count("\n", 0, m.start()) + 1, m.group(1)) for m in _FUNCTION.finditer(source)]
    out: dict[str, str] = {}
    # the linker names the function an undefined reference comes from
    for m in re.finditer(r"in function `(\w+)\([^\n]*\n[^\n]*undefined reference to `([^']*)'", stderr):
        out.setdefault(m.group(1), f"undefined reference to {m.group(2)[:300]}")
    message, blamed = None, None
    for line in stderr.splitlines() + ["end:0:0: error: end"]:
        m = _ERROR.match(line)
        if m:
            if message is not None and blamed is not None and blamed not in out:
                out[blamed] = message
            message, blamed = m.group("message"), None
            if m.group("file") == source_path:
                blamed = _function_at(starts, int(m.group("line")))
            continue
        n = _NOTE_AT.match(line)
        if n and n.group("file") == source_path and blamed is None:
            blamed = _function_at(starts, int(n.group("line")))
    return out


def _function_at(starts: list[tuple[int, str]], line: int) -> str | None:
    found = None
    for first, name in starts:
        if first <= line:
            found = name
    return found


def build(toolchain: oracles.IsaToolchain, translation: Translation, arch: str) -> tuple[Program, dict[str, str]]:
    """The compiled program of a translated batch (from the cache when the
    same source was compiled before), and the functions pto-isa refused to
    compile (left out of the program), each with the compiler's message."""
    preamble, functions = translation.preamble, dict(translation.functions)
    refused: dict[str, str] = {}
    for _attempt in range(3):
        source = program_source(preamble, functions, arch)
        key = hashlib.sha256(f"{toolchain.cxx}\0{toolchain.include}\0{headers_fingerprint(toolchain.include)}\0{CXX_FLAGS}\0{source}".encode()).hexdigest()[:24]
        binary = cache_dir() / f"batch-{key}"
        known = binary.with_suffix(".refused")
        if binary.exists():
            return Program(binary, tuple(functions)), refused
        if known.exists():  # compiled before: these functions fail
            more = dict(line.split("\t", 1) for line in known.read_text().splitlines() if "\t" in line)
        else:
            pch = _pch(toolchain)
            src = cache_dir() / f"batch-{key}.cpp"
            src.write_text(source)
            tmp = binary.with_suffix(f".{os.getpid()}.tmp")
            errors = _compile(toolchain, ["-ferror-limit=0", "-include-pch", str(pch), str(src), "-o", str(tmp)], f"the batch {src}", check=False)
            if errors is None:
                os.replace(tmp, binary)
                return Program(binary, tuple(functions)), refused
            more = refusals(errors, str(src), source)
            if not more:
                raise SimError(f"{os.path.basename(toolchain.cxx)} could not compile the batch {src}:\n{errors[-6000:]}")
            known.write_text("".join(f"{name}\t{msg}\n" for name, msg in more.items()))
        refused.update(more)
        functions = {name: text for name, text in functions.items() if name not in more}
    raise SimError("the batch still does not compile after leaving out the functions pto-isa refuses")


def run_program(program: Program, data: bytes) -> bytes:
    with tempfile.TemporaryDirectory(prefix="pto-isa-run-") as tmp:
        given, got = Path(tmp) / "in.bin", Path(tmp) / "out.bin"
        given.write_bytes(data)
        try:
            done = subprocess.run([str(program.binary), str(given), str(got)], capture_output=True, text=True, timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired as e:
            raise SimError(f"{program.binary} did not finish in {RUN_TIMEOUT} s") from e
        if done.returncode != 0:
            raise SimError(f"{program.binary} failed (exit {done.returncode}):\n{done.stderr[-4000:]}")
        return got.read_bytes()
