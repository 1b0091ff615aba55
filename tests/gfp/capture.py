#!/usr/bin/env python3
"""tests/gfp/capture.py: the gfp names a kernel's kmem tracepoints print, with
their bit values, as the fixture lines tests/gfp/*.txt hold.

Two sources:

  capture.py source TREE RELEASE [CONFIG=y|n ...]
      TREE is an unpacked kernel source tree.  The script cuts the name table
      (__def_gfpflag_names and, where the release has it,
      __def_gfpflag_names_kasan) out of include/trace/events/mmflags.h,
      compiles it with the tree's include/linux/gfp_types.h and the given
      configs (KASAN_HW_TAGS, LOCKDEP, SLAB_OBJ_EXT) with the host's cc, and
      prints every entry the kernel's __print_flags would walk, in its order.

  capture.py format FILE RELEASE [CONFIG=y|n ...]
      FILE is a running kernel's events/kmem/kmalloc/format (tracefs); the
      script evaluates the constant expressions of its print fmt.  The configs
      given are only written into the header: they are what that kernel was
      built with.

Output: a header line "# release R config K=v ..." and one line per entry,
"NAME 0xVALUE", in the kernel's order.  Nothing of the kernel's text is
written out: only names and numbers.
"""
import os
import re
import subprocess
import sys
import tempfile

CONFIGS = ("KASAN_HW_TAGS", "LOCKDEP", "SLAB_OBJ_EXT")


def parse_configs(args):
    cfg = {c: False for c in CONFIGS}
    for a in args:
        name, _, val = a.partition("=")
        if name not in cfg or val not in ("y", "n"):
            sys.exit(f"capture.py: bad config {a!r} (want one of {CONFIGS} =y or =n)")
        cfg[name] = val == "y"
    return cfg


def header(release, cfg):
    return f"# release {release} config " + " ".join(
        f"{c}={'y' if cfg[c] else 'n'}" for c in CONFIGS)


def from_source(tree, cfg):
    mmflags = open(os.path.join(tree, "include/trace/events/mmflags.h")).read()
    start = mmflags.index("/* These define") if "/* These define" in mmflags else 0
    end = mmflags.index("#define show_gfp_flags")
    table = "\n".join(l for l in mmflags[start:end].splitlines() if not l.startswith("#include"))
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "linux"))
        with open(os.path.join(tmp, "linux/bits.h"), "w") as f:
            f.write("#define BIT(nr) (1UL << (nr))\n")
        defs = "".join(f"#define CONFIG_{c} 1\n" for c in CONFIGS if cfg[c])
        prog = (
            "#include <stdio.h>\n" + defs +
            "#define __force\n#define __bitwise\ntypedef unsigned int gfp_t;\n"
            "#define IS_ENABLED(x) 0\n"
            '#include "linux/gfp_types.h"\n'
            "#define TRACE_DEFINE_ENUM(x)\n" + table + "\n"
            "#ifndef __def_gfpflag_names_kasan\n#define __def_gfpflag_names_kasan\n#endif\n"
            "static const struct { unsigned long v; const char *n; } names[] = {\n"
            "    __def_gfpflag_names __def_gfpflag_names_kasan, {0, 0}};\n"
            "int main(void)\n{\n"
            "    for (unsigned i = 0; names[i].n; i++)\n"
            '        printf("%s 0x%lx\\n", names[i].n, names[i].v);\n'
            "    return 0;\n}\n")
        src = os.path.join(tmp, "names.c")
        exe = os.path.join(tmp, "names")
        with open(src, "w") as f:
            f.write(prog)
        subprocess.run(["cc", "-w", "-I", tmp, "-I", os.path.join(tree, "include"),
                        "-o", exe, src], check=True)
        return subprocess.run([exe], check=True, capture_output=True, text=True).stdout


def c_value(expr):
    """Value of a constant C expression of the print fmt (casts, 1UL, shifts)."""
    e = re.sub(r"\(\s*(unsigned long|gfp_t)\s*\)", "", expr)
    e = re.sub(r"(\d+)UL", r"\1", e)
    if not re.fullmatch(r"[0-9xa-fA-F()|&~<>\s]*", e):
        raise ValueError(f"not a constant expression: {expr}")
    return eval(e, {"__builtins__": {}}) & 0xffffffff  # only digits and operators reach here


def from_format(path):
    text = open(path).read()
    fmt = text[text.index("__print_flags("):]
    out = []
    for m in re.finditer(r'\{\s*\(\s*unsigned long\)(.*?),\s*"([A-Z_0-9]+)"\s*\}', fmt):
        out.append(f"{m.group(2)} 0x{c_value(m.group(1)):x}")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("source", "format"):
        sys.exit(__doc__)
    kind, path, release = sys.argv[1:4]
    cfg = parse_configs(sys.argv[4:])
    body = from_source(path, cfg) if kind == "source" else from_format(path)
    sys.stdout.write(header(release, cfg) + "\n" + body)


if __name__ == "__main__":
    main()
