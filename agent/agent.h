/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * agent.h - the imatrust-agent state machine (proto/PROTOCOL.md).
 *
 *   start:   open the list, the TPM (retried while it does not answer),
 *            EK and AK; READY=1
 *   connect: POST /nonce; 404 or 403 "not activated"/"challenge" (or an
 *            AK made just now) -> enroll; "pending" -> wait and ask again
 *   enroll:  POST /v1/agents, TPM2_ActivateCredential, POST .../activate
 *   stream:  quote, then read the list, POST .../evidence, take the next
 *            nonce and next_index from the verdict; sleep until the list
 *            grows or the heartbeat is due
 *   backoff: after a transport error or an answer that says so, wait
 *            (bounded exponential, jittered), then connect again
 */
#ifndef IMATRUST_AGENT_AGENT_H
#define IMATRUST_AGENT_AGENT_H

#include <signal.h>

#include "agent_config.h"

/**
 * agent_run() - run the agent until *@stop is set.
 * @cfg: the checked configuration (borrowed)
 * @stop: set by the caller's SIGTERM/SIGINT handler
 * @sigmask: the signal mask to sleep with; the caller keeps SIGTERM and
 *	     SIGINT blocked outside the agent's sleeps, so a stop request
 *	     ends a sleep at once and never interrupts TPM or HTTPS calls
 *
 * Return: 0 after a requested stop; 1 when the agent cannot work (the
 * list does not open, the TPM fails other than by not answering).
 */
int agent_run(const struct agent_config *cfg, volatile sig_atomic_t *stop,
	      const sigset_t *sigmask);

#endif /* IMATRUST_AGENT_AGENT_H */
