/*
 * mem.c: the simulated memory arena and its one bounds-checked accessor.
 *
 * Each node's memory is one zone of contiguous pages at a kernel-like
 * direct-map address.  A page's bytes are host memory allocated on its first
 * write; pages never written read as zeros, so a 64 MiB node costs nothing
 * until slabs use it.  Every read or write of simulated bytes (free pointers,
 * object contents) goes through mem_read()/mem_write(), which refuse anything
 * outside a page that the page allocator has handed out at least once.  Host
 * pointers to page bytes are never kept across calls.
 */
#include "internal.h"

#include <string.h>

/* Copy @len bytes at @addr into @buf.  Returns 0 or -EFAULT. */
int mem_read(const struct sim *sim, sim_addr_t addr, void *buf, size_t len)
{
    uint8_t *out = buf;

    while (len) {
        struct sim_page *p = page_of(sim, addr);
        size_t off = (size_t)(addr & (PAGE_SIZE - 1));
        size_t n = PAGE_SIZE - off < len ? PAGE_SIZE - off : len;

        if (!p)
            return -EFAULT;
        if (p->bytes)
            memcpy(out, p->bytes + off, n);
        else
            memset(out, 0, n);
        out += n;
        addr += n;
        len -= n;
    }
    return 0;
}

/* Copy @len bytes from @buf to @addr.  Returns 0 or -EFAULT. */
int mem_write(struct sim *sim, sim_addr_t addr, const void *buf, size_t len)
{
    const uint8_t *in = buf;

    while (len) {
        struct sim_page *p = page_of(sim, addr);
        size_t off = (size_t)(addr & (PAGE_SIZE - 1));
        size_t n = PAGE_SIZE - off < len ? PAGE_SIZE - off : len;

        if (!p)
            return -EFAULT;
        if (!p->bytes) {
            p->bytes = sim_zalloc(sim, PAGE_SIZE);
            sim->nr_page_bytes++;
        }
        memcpy(p->bytes + off, in, n);
        in += n;
        addr += n;
        len -= n;
    }
    return 0;
}

/* Read the 64-bit word at @addr (little endian, as x86-64). 0 or -EFAULT. */
int mem_read_u64(const struct sim *sim, sim_addr_t addr, uint64_t *v)
{
    uint8_t b[8];
    uint64_t x = 0;

    if (mem_read(sim, addr, b, sizeof(b)))
        return -EFAULT;
    for (int i = 7; i >= 0; i--)
        x = (x << 8) | b[i];
    *v = x;
    return 0;
}

/* Write the 64-bit word @v at @addr.  0 or -EFAULT. */
int mem_write_u64(struct sim *sim, sim_addr_t addr, uint64_t v)
{
    uint8_t b[8];

    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    return mem_write(sim, addr, b, sizeof(b));
}

int sim_read_bytes(const struct sim *sim, sim_addr_t addr, void *buf, size_t len)
{
    return mem_read(sim, addr, buf, len);
}

int sim_write_bytes(struct sim *sim, sim_addr_t addr, const void *buf, size_t len)
{
    int ret;

    if (sim->broken)
        return -EIO;
    sim->in_apply = true;
    if (setjmp(sim->oom_jmp)) {
        sim->in_apply = false;
        return -ENOMEM;
    }
    ret = mem_write(sim, addr, buf, len);
    sim->in_apply = false;
    return ret;
}
