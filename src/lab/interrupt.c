/*
 * interrupt.c - see interrupt.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t stop_flag, stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
    stop_flag = 1;
}

void sl_interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void sl_interrupt_request(void)
{
    stop_flag = 1;
}

bool sl_interrupted(void)
{
    return stop_flag != 0;
}

const char *sl_interrupt_cause(void)
{
    return stop_signal == SIGINT ? "SIGINT" : stop_signal == SIGTERM ? "SIGTERM" : "a stop request";
}
