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
 *
 * A page's bytes are shared, copy on write, between a machine and its clones:
 * sim_clone() takes a reference to each buffer instead of copying it, and
 * mem_write() to a buffer with more than one holder first copies it for this
 * machine alone (a host allocation like any other, so it may unwind).  The
 * holder count sits in PAGE_BYTES_HDR bytes before the page's bytes and is
 * atomic: several threads may clone one machine at once, and each machine is
 * written by one thread at a time; a buffer with one holder belongs to it
 * alone and is written in place.  A machine being cloned must not be written
 * meanwhile, as for any other state it holds.
 */
#include "internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The header before a page's bytes: how many machines hold them. */
struct page_bytes_hdr {
    atomic_uint refs; /* >= 1 while any struct sim_page.bytes points here */
};

_Static_assert(sizeof(struct page_bytes_hdr) <= PAGE_BYTES_HDR, "page bytes header too big");

static struct page_bytes_hdr *hdr_of(uint8_t *bytes)
{
    return (struct page_bytes_hdr *)(void *)(bytes - PAGE_BYTES_HDR);
}

static uint8_t *bytes_of(void *block)
{
    atomic_init(&((struct page_bytes_hdr *)block)->refs, 1);
    return (uint8_t *)block + PAGE_BYTES_HDR;
}

/* A page buffer held once, its bytes left uninitialised (an image's load
 * fills them).  Plain malloc, outside any operation: NULL when the host is out. */
uint8_t *page_bytes_alloc(void)
{
    void *block = malloc(PAGE_BYTES_BLOCK);

    return block ? bytes_of(block) : NULL;
}

/* One more holder of @bytes (sim_clone).  Cannot fail. */
void page_bytes_get(uint8_t *bytes)
{
    atomic_fetch_add_explicit(&hdr_of(bytes)->refs, 1, memory_order_relaxed);
}

/* One holder fewer of @bytes, freed with the last; NULL is fine. */
void page_bytes_put(uint8_t *bytes)
{
    if (bytes && atomic_fetch_sub_explicit(&hdr_of(bytes)->refs, 1, memory_order_acq_rel) == 1)
        free(hdr_of(bytes));
}

/* A host's page buffers and holds (slub.h): the same holder count as a
 * machine's, so a machine sharing bytes with a host copies them before it
 * writes. */
uint8_t *sim_page_bytes_new(void)
{
    return page_bytes_alloc();
}

const uint8_t *sim_page_bytes_hold(const uint8_t *bytes)
{
    page_bytes_get((uint8_t *)(uintptr_t)bytes);
    return bytes;
}

void sim_page_bytes_drop(const uint8_t *bytes)
{
    page_bytes_put((uint8_t *)(uintptr_t)bytes);
}

/* @p's bytes for writing by this machine alone: a fresh zeroed buffer if it
 * has none, a private copy if they are shared.  Unwinds if the host is out. */
static uint8_t *page_bytes_writable(struct sim *sim, struct sim_page *p)
{
    uint8_t *old = p->bytes, *copy;

    if (!old) {
        p->bytes = bytes_of(sim_zalloc(sim, PAGE_BYTES_BLOCK));
        sim->nr_page_bytes++;
        return p->bytes;
    }
    /* acquire: the other holders' reads of the buffer come before our writes */
    if (atomic_load_explicit(&hdr_of(old)->refs, memory_order_acquire) == 1)
        return old;
    copy = bytes_of(sim_realloc(sim, NULL, PAGE_BYTES_BLOCK)); /* no need to zero it */
    memcpy(copy, old, PAGE_SIZE);
    p->bytes = copy;
    page_bytes_put(old);
    return copy;
}

/* The page holding @addr, with @addr's offset in it in *@off and in *@n how
 * many of the @len bytes from @addr lie in it; NULL when no page does. */
static struct sim_page *page_span(const struct sim *sim, sim_addr_t addr, size_t len, size_t *off,
                                  size_t *n)
{
    *off = (size_t)(addr & (PAGE_SIZE - 1));
    *n = PAGE_SIZE - *off < len ? PAGE_SIZE - *off : len;
    return page_of(sim, addr);
}

/* Copy @len bytes at @addr into @buf.  Returns 0 or -EFAULT. */
int mem_read(const struct sim *sim, sim_addr_t addr, void *buf, size_t len)
{
    uint8_t *out = buf;

    while (len) {
        size_t off, n;
        struct sim_page *p = page_span(sim, addr, len, &off, &n);

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
        size_t off, n;
        struct sim_page *p = page_span(sim, addr, len, &off, &n);

        if (!p)
            return -EFAULT;
        memcpy(page_bytes_writable(sim, p) + off, in, n);
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
