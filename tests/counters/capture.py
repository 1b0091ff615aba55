#!/usr/bin/env python3
"""tests/counters/capture.py: the SLUB statistics a release shows in
/sys/kernel/slab/<cache>/ (CONFIG_SLUB_STATS), as the fixture lines
tests/counters/<release>.txt hold.

  capture.py TREE RELEASE

TREE is an unpacked kernel source tree.  The script reads the members of
`enum stat_item` (mm/slub.c, or include/linux/slub_def.h before 6.2) and the
sysfs name each one gets from its STAT_ATTR(ITEM, name) line, and prints a
header "# release R" and one sysfs name a line, in the enum's order.  It
fails when an item has no STAT_ATTR line.  Only the names are written out.
"""
import os
import re
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    tree, release = sys.argv[1:]
    slub = open(os.path.join(tree, "mm/slub.c")).read()
    text = slub
    if "enum stat_item {" not in text:
        text = open(os.path.join(tree, "include/linux/slub_def.h")).read()
    body = text[text.index("enum stat_item {"):]
    body = body[body.index("{") + 1:body.index("};")]
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    items = [m for m in re.findall(r"^\s*([A-Z][A-Z0-9_]*)\s*[,=]?", body, re.M)
             if m != "NR_SLUB_STAT_ITEMS"]
    attrs = dict(re.findall(r"^STAT_ATTR\(\s*([A-Z0-9_]+)\s*,\s*([a-z0-9_]+)\s*\);", slub, re.M))
    missing = [i for i in items if i not in attrs]
    if missing or not items:
        sys.exit(f"capture.py: no STAT_ATTR for {missing or 'any item'}")
    print(f"# release {release}")
    for i in items:
        print(attrs[i])


if __name__ == "__main__":
    main()
