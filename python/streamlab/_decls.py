"""The op functions' C declarations, read from the generated streamlab_ops.h.

Shared by the bindings (_lib.py, at import) and the build (gen_fastcall.py,
which writes the C extension's wrappers from the same declarations): no
library is loaded here."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, List, Tuple

DECL = re.compile(r"\bsl_status\s+(sl_[a-z0-9_]+)\s*\(([^)]*)\)\s*;", re.S)


def parse_params(text: str) -> List[Tuple[str, str]]:
    """'const void *a, size_t n' -> [('void *', 'a'), ('size_t', 'n')] (const dropped)."""
    params = []
    for p in text.split(","):
        p = " ".join(p.replace("const ", "").split())
        m = re.match(r"^(.*?)\s*(\**)\s*([A-Za-z_][A-Za-z0-9_]*)$", p)
        if not m:
            raise ValueError("streamlab: cannot read the parameter '%s' of streamlab_ops.h" % p)
        base, stars, name = m.group(1), m.group(2), m.group(3)
        params.append((base + (" " + stars if stars else ""), name))
    return params


def read_declarations(header: Path) -> Dict[str, List[Tuple[str, str]]]:
    """{C function: [(C type, parameter name), ...]} of every sl_status function the header declares."""
    text = re.sub(r"/\*.*?\*/", " ", Path(header).read_text(), flags=re.S)
    return {m.group(1): parse_params(m.group(2)) for m in DECL.finditer(text)}
