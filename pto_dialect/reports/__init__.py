"""What the passes decided, as data (`decisions`: per loop and per
function), and the memory report rendered from it (`memory`)."""
