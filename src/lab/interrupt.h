/*
 * interrupt.h - SIGINT and SIGTERM, for every long command (run, probe,
 * train): the signal only sets a flag; the work checks it at its next safe
 * point (between trials, probes or training steps), stops, writes its
 * files with what finished, marked as interrupted, and the command exits
 * 130. One mechanism, so that the commands agree.
 */
#ifndef SL_INTERRUPT_H
#define SL_INTERRUPT_H

#include <stdbool.h>

/* Catch SIGINT and SIGTERM from now on (sigaction; the flag is a
 * sig_atomic_t, nothing else happens in the handler). */
void sl_interrupt_install(void);
/* Ask the work to stop, as a signal does (also used without one: an MPI
 * rank that failed stops the others). */
void sl_interrupt_request(void);
/* Whether a stop was asked for. */
bool sl_interrupted(void);
/* "SIGINT" or "SIGTERM": the signal that asked, or "a stop request". */
const char *sl_interrupt_cause(void);

#endif /* SL_INTERRUPT_H */
