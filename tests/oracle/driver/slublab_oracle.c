// SPDX-License-Identifier: GPL-2.0
/*
 * slublab_oracle.c: slublab's test driver for recording what a real
 * kernel's SLUB does (docs/kernel-oracle.md).
 *
 * scripts/kernel-oracle copies this file into the mm/ directory of a kernel
 * tree it builds (kmem_cache_prefill_sheaf() and friends are not exported to
 * modules, so the driver is built into the image).  It is slublab's own code,
 * not kernel code, and runs only in those test kernels.
 *
 * The driver makes /proc/slublab_oracle.  A write(2) to it is one or more
 * lines of a program, in the line format of tests/oracle/driver/README, or
 * "exec FILE", the lines of a file of the initramfs.  Each operation runs
 * on the CPU its line names, in task context (work_on_cpu(): a kworker
 * bound to that CPU; consecutive lines on one CPU share the work item), and
 * the write returns when all have run or one has failed.  Cache creation is
 * pinned the same way.  A read returns the reason the last
 * failing write failed.  The initramfs's shell script feeds the lines and
 * reads /sys/kernel/slab/<cache>/ itself at each mark, so the driver prints
 * nothing.
 *
 * Objects live in slots the translator numbers (one slot per allocation of
 * the program, never reused), sheaves in sheaf slots, caches in cache
 * slots.  "end" frees whatever the program left live, returns its sheaves,
 * waits for RCU and destroys its caches, so the next run starts from fresh
 * caches of the same names.
 *
 * Differences between the releases it is built for (6.1, 6.12, 7.x) are
 * kept to #ifs on LINUX_VERSION_CODE: struct kmem_cache_args (6.12+),
 * sheaves and the prefill API (6.18+), kmem_cache_alloc_bulk()'s result (a
 * count before 7.0, a bool since), kfree_rcu() through sheaves (7.x only
 * here: the oracle offers kfree_rcu on 7.x kernels alone), and the head
 * kvfree_call_rcu() takes (struct rcu_head before 7.3, struct
 * kvfree_rcu_head since), and the call that allocates from a given cache
 * with a requested size (kmalloc_trace() in 6.1, __kmalloc_cache_noprof()
 * since 6.10).
 *
 * The debugging operations (an allocation with a requested size, bytes
 * written into an object or its red zone, krealloc(), kfree()) are what
 * lib/slub_kunit.c does; the reports SLUB prints go to the kernel log,
 * which the initramfs's script reads at each mark.
 */
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/mm.h> /* before "slab.h", which 6.1's needs it for */
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "slab.h" /* struct kmem_cache's size and red_left_pad, for "write" */

#define SO_HAVE_ARGS (LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0))
#define SO_HAVE_SHEAVES (LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0))
#define SO_HAVE_KFREE_RCU (LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0))
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define so_kmalloc_cache __kmalloc_cache_noprof
#else
#define so_kmalloc_cache kmalloc_trace
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
#define so_rcu_head kvfree_rcu_head
#else
#define so_rcu_head rcu_head
#endif

#define SO_MAX_CACHES 64
#define SO_MAX_LINE 512
#define SO_MAX_SLOTS (1u << 20)
#define SO_MAX_SHEAVES 1024

struct so_cache {
	struct kmem_cache *s; /* NULL when not created or destroyed */
	unsigned int object_size;
	unsigned long live; /* objects in slots, not counting sheaves */
};

/* so_obj.cache of an object krealloc() moved into a kmalloc cache */
#define SO_KMALLOC UINT_MAX

struct so_obj {
	void *p;	   /* NULL: free, never allocated, or allocation failed */
	void *freed;	   /* the object this slot freed last ("write" into it) */
	unsigned int cache; /* index into so_caches, or SO_KMALLOC */
};

#if SO_HAVE_SHEAVES
struct so_sheaf {
	struct slab_sheaf *sheaf; /* NULL: returned or not prefilled */
	unsigned int cache;
};
#endif

static DEFINE_MUTEX(so_lock); /* serialises writes; guards everything below */
static struct so_cache so_caches[SO_MAX_CACHES];
static struct so_obj *so_objs; /* so_nobjs slots, vzalloc'd by "begin" */
static unsigned int so_nobjs;
#if SO_HAVE_SHEAVES
static struct so_sheaf so_sheaves[SO_MAX_SHEAVES];
#endif
static char so_error[SO_MAX_LINE + 64]; /* why the last failing write failed */

/* One operation, handed to the CPU that runs it. */
struct so_op {
	char *argv[16];
	int argc;
	long (*fn)(struct so_op *op);
};

static void so_ctor(void *p)
{
	/* a constructor that leaves the object alone: only its presence counts */
}

static int so_fail(int err, const char *fmt, const char *arg)
{
	scnprintf(so_error, sizeof(so_error), fmt, arg);
	return err;
}

static int so_uint(const char *s, unsigned int *v)
{
	return kstrtouint(s, 0, v);
}

struct so_name {
	const char *name;
	unsigned long value;
};

static const struct so_name so_slab_flags[] = {
	{ "SLAB_HWCACHE_ALIGN", (unsigned long)SLAB_HWCACHE_ALIGN },
	{ "SLAB_RED_ZONE", (unsigned long)SLAB_RED_ZONE },
	{ "SLAB_POISON", (unsigned long)SLAB_POISON },
	{ "SLAB_STORE_USER", (unsigned long)SLAB_STORE_USER },
	{ "SLAB_CONSISTENCY_CHECKS", (unsigned long)SLAB_CONSISTENCY_CHECKS },
	{ "SLAB_TYPESAFE_BY_RCU", (unsigned long)SLAB_TYPESAFE_BY_RCU },
	{ "SLAB_RECLAIM_ACCOUNT", (unsigned long)SLAB_RECLAIM_ACCOUNT },
	{ "SLAB_KMALLOC", (unsigned long)SLAB_KMALLOC }, /* 6.2+ accepts it (translate.py) */
	{ NULL, 0 },
};

static const struct so_name so_gfp_flags[] = {
	{ "GFP_KERNEL", (unsigned long)GFP_KERNEL },
	{ "GFP_NOWAIT", (unsigned long)GFP_NOWAIT },
	{ "GFP_ATOMIC", (unsigned long)GFP_ATOMIC },
	{ "GFP_NOIO", (unsigned long)GFP_NOIO },
	{ "GFP_NOFS", (unsigned long)GFP_NOFS },
	{ "__GFP_ZERO", (unsigned long)__GFP_ZERO },
	{ "__GFP_NOWARN", (unsigned long)__GFP_NOWARN },
	{ "__GFP_NORETRY", (unsigned long)__GFP_NORETRY },
	{ "__GFP_RETRY_MAYFAIL", (unsigned long)__GFP_RETRY_MAYFAIL },
	{ "__GFP_THISNODE", (unsigned long)__GFP_THISNODE },
	{ "__GFP_HIGH", (unsigned long)__GFP_HIGH },
	{ "__GFP_NOMEMALLOC", (unsigned long)__GFP_NOMEMALLOC },
	{ NULL, 0 },
};

/* Parses NAME|NAME|... (or "0") against table; returns 0 or -EINVAL. */
static int so_flags(char *s, const struct so_name *table, unsigned long *out)
{
	unsigned long v = 0;
	char *word;
	int i;

	if (!strcmp(s, "0")) {
		*out = 0;
		return 0;
	}
	while ((word = strsep(&s, "|")) != NULL) {
		for (i = 0; table[i].name; i++)
			if (!strcmp(word, table[i].name))
				break;
		if (!table[i].name)
			return so_fail(-EINVAL, "unknown flag %s", word);
		v |= table[i].value;
	}
	*out = v;
	return 0;
}

static int so_cache_arg(const char *s, unsigned int *c, bool live)
{
	if (so_uint(s, c) || *c >= SO_MAX_CACHES)
		return so_fail(-EINVAL, "bad cache slot %s", s);
	if (live != !!so_caches[*c].s)
		return so_fail(-EINVAL, live ? "cache slot %s not created" : "cache slot %s in use", s);
	return 0;
}

static int so_slot_arg(const char *s, unsigned int *i)
{
	if (so_uint(s, i) || *i >= so_nobjs)
		return so_fail(-EINVAL, "bad object slot %s", s);
	return 0;
}

/* create CPU C NAME SIZE ALIGN FLAGS CTOR FREEPTR_OFFSET|-1 SHEAF_CAPACITY */
static long so_create(struct so_op *op)
{
	unsigned int c, size, align, ctor, sheaf_capacity;
	unsigned long flags;
	struct kmem_cache *s;
	unsigned int freeptr_offset = 0;
	bool has_freeptr;
	int err;

	if (op->argc != 10)
		return so_fail(-EINVAL, "create takes 9 arguments%s", "");
	has_freeptr = strcmp(op->argv[8], "-1") != 0;
	if ((err = so_cache_arg(op->argv[2], &c, false)))
		return err;
	if (so_uint(op->argv[4], &size) || so_uint(op->argv[5], &align) ||
	    so_uint(op->argv[7], &ctor) || so_uint(op->argv[9], &sheaf_capacity) ||
	    (has_freeptr && so_uint(op->argv[8], &freeptr_offset)))
		return so_fail(-EINVAL, "create: bad number in %s", op->argv[3]);
	if ((err = so_flags(op->argv[6], so_slab_flags, &flags)))
		return err;
#if SO_HAVE_ARGS
	{
		struct kmem_cache_args args = {
			.align = align,
			.ctor = ctor ? so_ctor : NULL,
			.freeptr_offset = freeptr_offset,
			.use_freeptr_offset = has_freeptr,
#if SO_HAVE_SHEAVES
			.sheaf_capacity = sheaf_capacity,
#endif
		};
#if !SO_HAVE_SHEAVES
		if (sheaf_capacity)
			return so_fail(-EINVAL, "create %s: no sheaves in this kernel", op->argv[3]);
#endif
		s = kmem_cache_create(op->argv[3], size, &args, (slab_flags_t)flags);
	}
#else
	if (has_freeptr || sheaf_capacity)
		return so_fail(-EINVAL, "create %s: no kmem_cache_args in this kernel", op->argv[3]);
	s = kmem_cache_create(op->argv[3], size, align, (slab_flags_t)flags,
			      ctor ? so_ctor : NULL);
#endif
	if (!s)
		return so_fail(-ENOMEM, "kmem_cache_create %s failed", op->argv[3]);
	so_caches[c].s = s;
	so_caches[c].object_size = size;
	so_caches[c].live = 0;
	return 0;
}

/* alloc CPU C SLOT NODE|-1 GFP [SIZE]: with SIZE, the kmalloc call of a
 * requested size from this cache (what slub_kunit.c's kmalloc red zone
 * tests call), which keeps SIZE as the object's orig_size */
static long so_alloc(struct so_op *op)
{
	unsigned int c, i, size = 0;
	unsigned long gfp;
	int node, err;
	void *p;

	if (op->argc != 6 && op->argc != 7)
		return so_fail(-EINVAL, "alloc takes 5 or 6 arguments%s", "");
	if ((err = so_cache_arg(op->argv[2], &c, true)) || (err = so_slot_arg(op->argv[3], &i)) ||
	    (err = so_flags(op->argv[5], so_gfp_flags, &gfp)))
		return err;
	if (kstrtoint(op->argv[4], 0, &node))
		return so_fail(-EINVAL, "alloc: bad node %s", op->argv[4]);
	if (op->argc == 7 && (so_uint(op->argv[6], &size) || !size || size > so_caches[c].object_size))
		return so_fail(-EINVAL, "alloc: bad requested size %s", op->argv[6]);
	if (size && node >= 0)
		return so_fail(-EINVAL, "alloc: a requested size on a node%s", "");
	if (so_objs[i].p)
		return so_fail(-EINVAL, "alloc: slot %s is live", op->argv[3]);
	if (size)
		p = so_kmalloc_cache(so_caches[c].s, (gfp_t)gfp, size);
	else if (node >= 0)
		p = kmem_cache_alloc_node(so_caches[c].s, (gfp_t)gfp, node);
	else
		p = kmem_cache_alloc(so_caches[c].s, (gfp_t)gfp);
	so_objs[i].p = p;
	so_objs[i].cache = c;
	if (p)
		so_caches[c].live++;
	return 0;
}

/* Frees the object of slot @i: kfree() when @kfree or when krealloc() moved
 * it into a kmalloc cache, else kmem_cache_free() */
static void so_release(unsigned int i, bool kfree_it)
{
	struct so_obj *o = &so_objs[i];

	if (o->cache == SO_KMALLOC) {
		kfree(o->p);
	} else {
		if (kfree_it)
			kfree(o->p);
		else
			kmem_cache_free(so_caches[o->cache].s, o->p);
		so_caches[o->cache].live--;
	}
	o->freed = o->p;
	o->p = NULL;
}

/* free CPU SLOT, kfree CPU SLOT */
static long so_free_common(struct so_op *op, bool kfree_it)
{
	unsigned int i;
	int err;

	if (op->argc != 3)
		return so_fail(-EINVAL, "%s takes 2 arguments", op->argv[0]);
	if ((err = so_slot_arg(op->argv[2], &i)))
		return err;
	if (!so_objs[i].p)
		return 0; /* the allocation failed: like `if (p) kmem_cache_free(s, p)` */
	if (!kfree_it && so_objs[i].cache == SO_KMALLOC)
		return so_fail(-EINVAL, "free: slot %s is a kmalloc object (kfree)", op->argv[2]);
	so_release(i, kfree_it);
	return 0;
}

static long so_free(struct so_op *op)
{
	return so_free_common(op, false);
}

static long so_kfree(struct so_op *op)
{
	return so_free_common(op, true);
}

/* The bytes an object of slot @i has from its start: the cache's slot
 * size (red zone and metadata included), or ksize() of a kmalloc object */
static unsigned int so_obj_room(unsigned int i)
{
	const struct so_obj *o = &so_objs[i];
	const struct kmem_cache *s;

	if (o->cache == SO_KMALLOC)
		return ksize(o->p);
	s = so_caches[o->cache].s;
	return s->size - ((s->flags & SLAB_RED_ZONE) ? s->red_left_pad : 0);
}

/* write CPU SLOT OFFSET COUNT VALUE: COUNT bytes VALUE at OFFSET of the
 * object, the red zone after it included (slub_kunit.c's clobbers); of the
 * object the slot freed last when it holds none (translate.py writes into a
 * freed object only while its cache has allocated nothing since) */
static long so_write_bytes(struct so_op *op)
{
	unsigned int i, offset, count, value;
	void *p;
	int err;

	if (op->argc != 6)
		return so_fail(-EINVAL, "write takes 5 arguments%s", "");
	if ((err = so_slot_arg(op->argv[2], &i)))
		return err;
	if (so_uint(op->argv[3], &offset) || so_uint(op->argv[4], &count) ||
	    so_uint(op->argv[5], &value) || value > 255 || !count)
		return so_fail(-EINVAL, "write: bad arguments for slot %s", op->argv[2]);
	p = so_objs[i].p ? so_objs[i].p : so_objs[i].freed;
	if (!p || (!so_objs[i].p && (so_objs[i].cache == SO_KMALLOC || !so_caches[so_objs[i].cache].s)))
		return so_fail(-EINVAL, "write: slot %s holds no object of a live cache", op->argv[2]);
	if (offset > so_obj_room(i) || count > so_obj_room(i) - offset)
		return so_fail(-EINVAL, "write: past the object's slot in slot %s", op->argv[2]);
	memset((u8 *)p + offset, value, count);
	return 0;
}

/* krealloc CPU SLOT SIZE GFP: in place while it fits, else a kmalloc of
 * SIZE, the bytes copied and the old object freed */
static long so_krealloc(struct so_op *op)
{
	unsigned int i, size;
	unsigned long gfp;
	struct so_obj *o;
	int err;
	void *p;

	if (op->argc != 5)
		return so_fail(-EINVAL, "krealloc takes 4 arguments%s", "");
	if ((err = so_slot_arg(op->argv[2], &i)) ||
	    (err = so_flags(op->argv[4], so_gfp_flags, &gfp)))
		return err;
	if (so_uint(op->argv[3], &size) || !size)
		return so_fail(-EINVAL, "krealloc: bad size %s", op->argv[3]);
	o = &so_objs[i];
	if (!o->p)
		return 0;
	p = krealloc(o->p, size, (gfp_t)gfp);
	if (!p || p == o->p)
		return 0; /* failed (the object stays) or done in place */
	if (o->cache != SO_KMALLOC)
		so_caches[o->cache].live--;
	o->p = p;
	o->cache = SO_KMALLOC;
	return 0;
}

/* alloc_bulk CPU C FIRST COUNT GFP */
static long so_alloc_bulk(struct so_op *op)
{
	unsigned int c, first, count, k;
	unsigned long gfp;
	void **p;
	int err;
	long ok;

	if (op->argc != 6)
		return so_fail(-EINVAL, "alloc_bulk takes 5 arguments%s", "");
	if ((err = so_cache_arg(op->argv[2], &c, true)) || (err = so_slot_arg(op->argv[3], &first)) ||
	    (err = so_flags(op->argv[5], so_gfp_flags, &gfp)))
		return err;
	if (so_uint(op->argv[4], &count) || !count || count > so_nobjs - first)
		return so_fail(-EINVAL, "alloc_bulk: bad count %s", op->argv[4]);
	for (k = 0; k < count; k++)
		if (so_objs[first + k].p)
			return so_fail(-EINVAL, "alloc_bulk: slot in use%s", "");
	p = kvcalloc(count, sizeof(*p), GFP_KERNEL);
	if (!p)
		return so_fail(-ENOMEM, "alloc_bulk: no memory for the array%s", "");
	/* a count (0 on failure) before 7.0, a bool since: nonzero is success */
	ok = kmem_cache_alloc_bulk(so_caches[c].s, (gfp_t)gfp, count, p);
	for (k = 0; ok && k < count; k++) {
		so_objs[first + k].p = p[k];
		so_objs[first + k].cache = c;
		so_caches[c].live++;
	}
	kvfree(p);
	return 0;
}

/* free_bulk CPU C FIRST COUNT: every live object of the slots, in slot order */
static long so_free_bulk(struct so_op *op)
{
	unsigned int c, first, count, k, n = 0;
	void **p;
	int err;

	if (op->argc != 5)
		return so_fail(-EINVAL, "free_bulk takes 4 arguments%s", "");
	if ((err = so_cache_arg(op->argv[2], &c, true)) || (err = so_slot_arg(op->argv[3], &first)))
		return err;
	if (so_uint(op->argv[4], &count) || !count || count > so_nobjs - first)
		return so_fail(-EINVAL, "free_bulk: bad count %s", op->argv[4]);
	p = kvcalloc(count, sizeof(*p), GFP_KERNEL);
	if (!p)
		return so_fail(-ENOMEM, "free_bulk: no memory for the array%s", "");
	for (k = 0; k < count; k++) {
		struct so_obj *o = &so_objs[first + k];

		if (!o->p)
			continue;
		if (o->cache != c) {
			kvfree(p);
			return so_fail(-EINVAL, "free_bulk: object of another cache%s", "");
		}
		p[n++] = o->p;
		o->p = NULL;
	}
	if (n)
		kmem_cache_free_bulk(so_caches[c].s, n, p);
	so_caches[c].live -= n;
	kvfree(p);
	return 0;
}

/* shrink CPU C */
static long so_shrink(struct so_op *op)
{
	unsigned int c;
	int err;

	if (op->argc != 3)
		return so_fail(-EINVAL, "shrink takes 2 arguments%s", "");
	if ((err = so_cache_arg(op->argv[2], &c, true)))
		return err;
	kmem_cache_shrink(so_caches[c].s);
	return 0;
}

#if SO_HAVE_SHEAVES
static bool so_cache_has_sheaves(unsigned int c)
{
	unsigned int j;

	for (j = 0; j < SO_MAX_SHEAVES; j++)
		if (so_sheaves[j].sheaf && so_sheaves[j].cache == c)
			return true;
	return false;
}
#else
static bool so_cache_has_sheaves(unsigned int c)
{
	return false;
}
#endif

/* destroy CPU C: refused while the program holds objects of the cache */
static long so_destroy(struct so_op *op)
{
	unsigned int c;
	int err;

	if (op->argc != 3)
		return so_fail(-EINVAL, "destroy takes 2 arguments%s", "");
	if ((err = so_cache_arg(op->argv[2], &c, true)))
		return err;
	if (so_caches[c].live || so_cache_has_sheaves(c))
		return so_fail(-EBUSY, "destroy of cache slot %s with live objects or sheaves",
			       op->argv[2]);
	kmem_cache_destroy(so_caches[c].s);
	so_caches[c].s = NULL;
	return 0;
}

#if SO_HAVE_SHEAVES
static int so_sheaf_arg(const char *s, unsigned int *j, bool live)
{
	if (so_uint(s, j) || *j >= SO_MAX_SHEAVES)
		return so_fail(-EINVAL, "bad sheaf slot %s", s);
	if (live != !!so_sheaves[*j].sheaf)
		return so_fail(-EINVAL, live ? "sheaf slot %s not prefilled" : "sheaf slot %s in use",
			       s);
	return 0;
}

/* prefill CPU C SHEAF COUNT GFP */
static long so_prefill(struct so_op *op)
{
	unsigned int c, j, count;
	unsigned long gfp;
	int err;

	if (op->argc != 6)
		return so_fail(-EINVAL, "prefill takes 5 arguments%s", "");
	if ((err = so_cache_arg(op->argv[2], &c, true)) ||
	    (err = so_sheaf_arg(op->argv[3], &j, false)) ||
	    (err = so_flags(op->argv[5], so_gfp_flags, &gfp)))
		return err;
	if (so_uint(op->argv[4], &count))
		return so_fail(-EINVAL, "prefill: bad count %s", op->argv[4]);
	/* NULL (failure) leaves the slot empty, as the engine's name holds NULL */
	so_sheaves[j].sheaf = kmem_cache_prefill_sheaf(so_caches[c].s, (gfp_t)gfp, count);
	so_sheaves[j].cache = c;
	return 0;
}

/* sheaf_alloc CPU SHEAF SLOT GFP */
static long so_sheaf_alloc(struct so_op *op)
{
	unsigned int j, i;
	unsigned long gfp;
	int err;
	void *p;

	if (op->argc != 5)
		return so_fail(-EINVAL, "sheaf_alloc takes 4 arguments%s", "");
	if ((err = so_uint(op->argv[2], &j)) || j >= SO_MAX_SHEAVES)
		return so_fail(-EINVAL, "bad sheaf slot %s", op->argv[2]);
	if ((err = so_slot_arg(op->argv[3], &i)) ||
	    (err = so_flags(op->argv[4], so_gfp_flags, &gfp)))
		return err;
	if (so_objs[i].p)
		return so_fail(-EINVAL, "sheaf_alloc: slot %s is live", op->argv[3]);
	if (!so_sheaves[j].sheaf)
		return 0; /* the prefill failed: the object is NULL too */
	p = kmem_cache_alloc_from_sheaf(so_caches[so_sheaves[j].cache].s, (gfp_t)gfp,
					so_sheaves[j].sheaf);
	so_objs[i].p = p;
	so_objs[i].cache = so_sheaves[j].cache;
	if (p)
		so_caches[so_sheaves[j].cache].live++;
	return 0;
}

/* refill CPU SHEAF COUNT GFP */
static long so_refill(struct so_op *op)
{
	unsigned int j, count;
	unsigned long gfp;
	int err;

	if (op->argc != 5)
		return so_fail(-EINVAL, "refill takes 4 arguments%s", "");
	if ((err = so_uint(op->argv[2], &j)) || j >= SO_MAX_SHEAVES)
		return so_fail(-EINVAL, "bad sheaf slot %s", op->argv[2]);
	if (so_uint(op->argv[3], &count) || (err = so_flags(op->argv[4], so_gfp_flags, &gfp)))
		return so_fail(-EINVAL, "refill: bad arguments%s", "");
	if (!so_sheaves[j].sheaf)
		return 0;
	/* on failure the kernel leaves the sheaf as it was */
	kmem_cache_refill_sheaf(so_caches[so_sheaves[j].cache].s, (gfp_t)gfp,
				&so_sheaves[j].sheaf, count);
	return 0;
}

/* return CPU SHEAF */
static long so_return(struct so_op *op)
{
	unsigned int j;

	if (op->argc != 3)
		return so_fail(-EINVAL, "return takes 2 arguments%s", "");
	if (so_uint(op->argv[2], &j) || j >= SO_MAX_SHEAVES)
		return so_fail(-EINVAL, "bad sheaf slot %s", op->argv[2]);
	if (!so_sheaves[j].sheaf)
		return 0;
	kmem_cache_return_sheaf(so_caches[so_sheaves[j].cache].s, GFP_KERNEL, so_sheaves[j].sheaf);
	so_sheaves[j].sheaf = NULL;
	return 0;
}
#endif /* SO_HAVE_SHEAVES */

#if SO_HAVE_KFREE_RCU
/* kfree_rcu CPU SLOT: kfree_rcu() with the rcu head at the object's start,
 * or the head-less form for objects smaller than the head */
static long so_kfree_rcu(struct so_op *op)
{
	unsigned int i, c;
	int err;

	if (op->argc != 3)
		return so_fail(-EINVAL, "kfree_rcu takes 2 arguments%s", "");
	if ((err = so_slot_arg(op->argv[2], &i)))
		return err;
	if (!so_objs[i].p)
		return 0;
	c = so_objs[i].cache;
	if (c == SO_KMALLOC)
		return so_fail(-EINVAL, "kfree_rcu: slot %s is a kmalloc object", op->argv[2]);
	if (so_caches[c].object_size >= sizeof(struct so_rcu_head))
		kvfree_call_rcu((struct so_rcu_head *)so_objs[i].p, so_objs[i].p);
	else
		kvfree_call_rcu(NULL, so_objs[i].p);
	so_caches[c].live--;
	so_objs[i].p = NULL;
	return 0;
}

/* rcu_barrier CPU */
static long so_rcu_barrier(struct so_op *op)
{
	kvfree_rcu_barrier();
	return 0;
}
#endif

/* begin NSLOTS: a new run; the previous one must have ended */
static long so_begin(struct so_op *op)
{
	unsigned int n, c;

	if (op->argc != 2 || so_uint(op->argv[1], &n) || n > SO_MAX_SLOTS)
		return so_fail(-EINVAL, "begin takes a slot count up to 2^20%s", "");
	for (c = 0; c < SO_MAX_CACHES; c++)
		if (so_caches[c].s)
			return so_fail(-EBUSY, "begin: the last run did not end%s", "");
	vfree(so_objs);
	so_objs = vzalloc(array_size(n ? n : 1, sizeof(*so_objs)));
	if (!so_objs) {
		so_nobjs = 0;
		return so_fail(-ENOMEM, "begin: no memory for the slots%s", "");
	}
	so_nobjs = n;
	return 0;
}

/* end: free what the run left, return its sheaves, destroy its caches */
static long so_end(struct so_op *op)
{
	unsigned int i, c;

	for (i = 0; i < so_nobjs; i++)
		if (so_objs[i].p)
			so_release(i, false);
#if SO_HAVE_SHEAVES
	for (i = 0; i < SO_MAX_SHEAVES; i++) {
		if (!so_sheaves[i].sheaf)
			continue;
		kmem_cache_return_sheaf(so_caches[so_sheaves[i].cache].s, GFP_KERNEL,
					so_sheaves[i].sheaf);
		so_sheaves[i].sheaf = NULL;
	}
#endif
#if SO_HAVE_KFREE_RCU
	kvfree_rcu_barrier();
#else
	rcu_barrier();
#endif
	for (c = 0; c < SO_MAX_CACHES; c++) {
		if (!so_caches[c].s)
			continue;
		kmem_cache_destroy(so_caches[c].s);
		so_caches[c].s = NULL;
	}
	return 0;
}

struct so_cmd {
	const char *name;
	long (*fn)(struct so_op *op);
	bool on_cpu; /* argv[1] names the CPU it runs on */
};

static const struct so_cmd so_cmds[] = {
	{ "begin", so_begin, false },
	{ "create", so_create, true },
	{ "alloc", so_alloc, true },
	{ "free", so_free, true },
	{ "kfree", so_kfree, true },
	{ "write", so_write_bytes, true },
	{ "krealloc", so_krealloc, true },
	{ "alloc_bulk", so_alloc_bulk, true },
	{ "free_bulk", so_free_bulk, true },
	{ "shrink", so_shrink, true },
	{ "destroy", so_destroy, true },
#if SO_HAVE_SHEAVES
	{ "prefill", so_prefill, true },
	{ "sheaf_alloc", so_sheaf_alloc, true },
	{ "refill", so_refill, true },
	{ "return", so_return, true },
#endif
#if SO_HAVE_KFREE_RCU
	{ "kfree_rcu", so_kfree_rcu, true },
	{ "rcu_barrier", so_rcu_barrier, true },
#endif
	{ "end", so_end, true },
	{ NULL, NULL, false },
};

#define SO_BATCH 256
#define SO_MAX_FILE (8u << 20)

/* Consecutive operations on one CPU, run by one work_on_cpu() call. */
struct so_batch {
	struct so_op ops[SO_BATCH];
	int lineno[SO_BATCH]; /* of each op in its text, for messages */
	int n;
	int done; /* operations that succeeded */
};

static struct so_batch so_batch; /* guarded by so_lock */

static long so_run_batch(void *arg)
{
	struct so_batch *b = arg;
	long err;

	for (b->done = 0; b->done < b->n; b->done++)
		if ((err = b->ops[b->done].fn(&b->ops[b->done])))
			return err;
	return 0;
}

/* Splits @line into @op and finds its command; returns 0 or -EINVAL. */
static int so_parse(char *line, struct so_op *op, const struct so_cmd **cmdp)
{
	const struct so_cmd *cmd;
	char *word;

	op->argc = 0;
	while ((word = strsep(&line, " ")) != NULL) {
		if (!*word)
			continue;
		if (op->argc == ARRAY_SIZE(op->argv))
			return so_fail(-E2BIG, "too many words%s", "");
		op->argv[op->argc++] = word;
	}
	if (!op->argc)
		return so_fail(-EINVAL, "empty line%s", "");
	for (cmd = so_cmds; cmd->name; cmd++)
		if (!strcmp(cmd->name, op->argv[0]))
			break;
	if (!cmd->name)
		return so_fail(-EINVAL, "unknown operation %s", op->argv[0]);
	op->fn = cmd->fn;
	*cmdp = cmd;
	return 0;
}

static int so_op_cpu(const struct so_cmd *cmd, struct so_op *op, unsigned int *cpu)
{
	if (!cmd->on_cpu) {
		*cpu = UINT_MAX;
		return 0;
	}
	if (op->argc < 2 || so_uint(op->argv[1], cpu) || *cpu >= nr_cpu_ids || !cpu_online(*cpu))
		return so_fail(-EINVAL, "%s: no such CPU", cmd->name);
	return 0;
}

static long so_flush_batch(unsigned int cpu)
{
	long err;

	if (!so_batch.n)
		return 0;
	if (cpu == UINT_MAX)
		err = so_run_batch(&so_batch);
	else
		err = work_on_cpu(cpu, so_run_batch, &so_batch);
	if (!err)
		so_batch.n = 0;
	return err;
}

/*
 * Runs the lines of @text in order, each on its CPU, consecutive lines on
 * one CPU in one work item; stops at the first that fails.
 */
static long so_run_text(char *text)
{
	unsigned int cpu, batch_cpu = UINT_MAX;
	const struct so_cmd *cmd;
	char *line;
	long err = 0;
	int lineno = 0, bad = 0;

	so_batch.n = 0;
	while ((line = strsep(&text, "\n")) != NULL) {
		struct so_op op;

		lineno++;
		line = strim(line);
		if (!*line)
			continue;
		if ((err = so_parse(line, &op, &cmd)) || (err = so_op_cpu(cmd, &op, &cpu))) {
			bad = lineno;
			break;
		}
		if (so_batch.n && (cpu != batch_cpu || so_batch.n == SO_BATCH)) {
			if ((err = so_flush_batch(batch_cpu))) {
				bad = so_batch.lineno[so_batch.done];
				break;
			}
		}
		so_batch.lineno[so_batch.n] = lineno;
		so_batch.ops[so_batch.n++] = op;
		batch_cpu = cpu;
	}
	if (!err && (err = so_flush_batch(batch_cpu)))
		bad = so_batch.lineno[so_batch.done];
	if (err) {
		char why[sizeof(so_error)];

		strscpy(why, so_error[0] ? so_error : "failed", sizeof(why));
		scnprintf(so_error, sizeof(so_error), "line %d: %s", bad, why);
	}
	return err;
}

/* exec PATH: runs the lines of a file of the initramfs */
static long so_exec(const char *path)
{
	struct file *f;
	char *buf;
	loff_t pos = 0;
	ssize_t n, len = 0;
	long err;

	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return so_fail(PTR_ERR(f), "exec: cannot open %s", path);
	buf = kvmalloc(SO_MAX_FILE + 1, GFP_KERNEL);
	if (!buf) {
		filp_close(f, NULL);
		return so_fail(-ENOMEM, "exec: no memory for %s", path);
	}
	while (len < SO_MAX_FILE && (n = kernel_read(f, buf + len, SO_MAX_FILE - len, &pos)) > 0)
		len += n;
	filp_close(f, NULL);
	buf[len] = '\0';
	err = so_run_text(buf);
	kvfree(buf);
	return err;
}

static ssize_t so_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[SO_MAX_LINE + 1];
	long err;

	if (len > SO_MAX_LINE)
		return -E2BIG;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	mutex_lock(&so_lock);
	so_error[0] = '\0';
	if (!strncmp(buf, "exec ", 5))
		err = so_exec(strim(buf + 5));
	else
		err = so_run_text(buf);
	if (err && !so_error[0])
		scnprintf(so_error, sizeof(so_error), "error %ld", err);
	mutex_unlock(&so_lock);
	return err ? err : (ssize_t)len;
}

static ssize_t so_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	char msg[sizeof(so_error) + 1];
	ssize_t n;

	mutex_lock(&so_lock);
	n = scnprintf(msg, sizeof(msg), "%s\n", so_error);
	mutex_unlock(&so_lock);
	return simple_read_from_buffer(ubuf, len, ppos, msg, n);
}

static const struct proc_ops so_proc_ops = {
	.proc_write = so_write,
	.proc_read = so_read,
	.proc_lseek = noop_llseek,
};

static int __init so_init(void)
{
	if (!proc_create("slublab_oracle", 0600, NULL, &so_proc_ops))
		return -ENOMEM;
	return 0;
}
late_initcall(so_init);
