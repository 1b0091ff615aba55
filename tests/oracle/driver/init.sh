#!/bin/busybox sh
# /init of the kernel oracle's initramfs (scripts/kernel-oracle builds it).
# Runs every /progs/*.prog RUNS times through /proc/slublab_oracle and writes
# what it sees to the second serial port (/dev/ttyS1), which QEMU writes to
# a file; kernel messages stay on the first.  At each "mark" line it prints
# every readable regular file of /sys/kernel/slab/<cache>/ for the caches
# the line names, after the kernel log's SLUB reports since the last mark
# ("kmsg" lines: record.py counts them).  Line format: tests/oracle/driver/README.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev 2>/dev/null
taskset -p 1 $$ >/dev/null 2>&1
stty -F /dev/ttyS1 raw -echo 2>/dev/null
exec 3>/dev/ttyS1
RUNS=$(cat /progs/runs)

echo "oracle-begin" >&3
echo "kernel $(uname -r)" >&3
for n in /sys/devices/system/node/node[0-9]*; do
    echo "node ${n##*/node} $(cat "$n/cpulist")" >&3
done

dump_cache() {
    echo "cache $1" >&3
    for f in /sys/kernel/slab/slublab-$1/*; do
        [ -f "$f" ] || continue
        # a file that cannot be opened for reading (mode 0200) is left out
        if { l=; read -r l; true; } 2>/dev/null <"$f"; then
            if [ -n "$l" ]; then echo "${f##*/} $l"; else echo "${f##*/}"; fi
        fi
    done >&3
}

# SLUB's reports in the kernel log since the last call, which it clears:
# the "BUG <cache> (...)" and "FIX <cache>:" lines, 7.x's "[<what>
# overwritten]" lines and validate's "SLUB <cache>: ... counted" lines
kmsg() {
    dmesg -c 2>/dev/null | grep -E '(BUG|FIX) slublab-| overwritten\] |SLUB:? slublab-' |
        sed 's/^/kmsg /' >&3
}

op_error() {
    read -r why </proc/slublab_oracle
    echo "error $1: $why" >&3
}

for p in /progs/*.prog; do
    read -r id <"${p%.prog}.id"
    echo "program $id" >&3
    r=1
    while [ "$r" -le "$RUNS" ]; do
        echo "run $r" >&3
        dmesg -c >/dev/null 2>&1
        ok=1
        while read -r op rest; do
            case $op in
            mark)
                set -- $rest
                echo "mark $1" >&3
                kmsg
                shift
                for c; do dump_cache "$c"; done
                ;;
            sys)
                set -- $rest
                d=/sys/kernel/slab/slublab-$2
                if [ "$3" = validate ]; then
                    echo 1 >"$d/validate" || { echo "error sys $rest" >&3; ok=0; break; }
                elif [ "$3" = flush ]; then
                    read -r v <"$d/cpu_partial" && echo "$v" >"$d/cpu_partial" || { echo "error sys $rest" >&3; ok=0; break; }
                else
                    echo "$5" >"$d/$4" || { echo "error sys $rest" >&3; ok=0; break; }
                fi
                ;;
            *)
                echo "$op $rest" >/proc/slublab_oracle 2>/dev/null || { op_error "$op $rest"; ok=0; break; }
                ;;
            esac
        done <"$p"
        echo "end 0" >/proc/slublab_oracle 2>/dev/null || op_error "end"
        [ "$ok" = 1 ] || break
        r=$((r + 1))
    done
    echo "done $id" >&3
done
echo "oracle-end" >&3
sync
poweroff -f
