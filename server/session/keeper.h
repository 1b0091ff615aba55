/*
 * keeper.h: a scenario run's end of batch 0 written to the store after the
 * open that built it has answered.
 *
 * The build of a scenario's run keeps its end (the head machine's image and
 * the run's state, run_state.h) in the store, so that the run, once evicted,
 * comes back without replaying (session_open_run()).  Packing that state is
 * about a quarter of what a build costs, and the open needs none of it, so
 * a build that the registry makes leaves it to the keeper: one thread, at a
 * lower priority than the threads that answer requests, that takes the runs
 * in the order they were built and writes each one's end
 * (session_keep_prepare(), then the packing outside the run's lock, then
 * session_keep_finish()).
 *
 * A run whose end is not written yet is not lost: a run freed while queued
 * (evicted, deleted) has its end written by the thread that frees it, and
 * one the keeper is writing is freed once it is written, so an evicted run
 * always comes back from the store.  keeper_free() writes every run still
 * queued before it returns, so a restart finds them; the store writes each
 * image in one statement, so it never finds half of one.
 */
#ifndef SLUBLAB_SERVER_SESSION_KEEPER_H
#define SLUBLAB_SERVER_SESSION_KEEPER_H

#include <stdbool.h>
#include <stdint.h>

struct keeper;
struct session_run;

/* Niceness of the keeper's thread: below every thread that answers (http.c's
 * engine threads run at 5). */
#define KEEPER_NICE 15
/* Its thread's name (at most 15 characters). */
#define KEEPER_THREAD_NAME "slublab-keeper"

/* A keeper; its thread starts when a run is queued.  0 or -ENOMEM. */
int keeper_new(struct keeper **out);
/* Write what is queued, wait for the thread to end and free the keeper.  NULL is fine. */
void keeper_free(struct keeper *k);
/* Queue @r (built, its end kept for later: r->keep_pending) to be written.
 * Cannot fail. */
void keeper_add(struct keeper *k, struct session_run *r);
/* @r is being freed: its end is written now if it is still queued, and this
 * waits while the keeper writes it. */
void keeper_forget(struct keeper *k, struct session_run *r);
/* @r's session is deleted (its images go): @r's end is not written, and
 * this waits while the keeper writes it, so that none is written after. */
void keeper_cancel(struct keeper *k, struct session_run *r);
/* Hold the keeper (@hold: its thread ends after the write it is doing) or
 * let it go on; for the tests, which look at the store before the keeper
 * wrote.  keeper_drain() writes what is queued in the caller's thread. */
void keeper_hold(struct keeper *k, bool hold);
void keeper_drain(struct keeper *k);
/* Ends written from the queue (by the keeper's thread or a drain), and
 * runs taken off it (freed, written by the thread that freed them; or
 * their session deleted). */
void keeper_counts(struct keeper *k, uint64_t *by_keeper, uint64_t *by_free);

#endif /* SLUBLAB_SERVER_SESSION_KEEPER_H */
