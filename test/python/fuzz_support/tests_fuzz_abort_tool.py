"""A stand-in tool for test_fuzz.py whose main() kills its process, as a
crash in the MLIR bindings would."""

import os


def main(argv):
    os.abort()
