/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * notify.h - tell systemd how the daemon is doing (sd_notify(3) protocol,
 * without libsystemd): one datagram to $NOTIFY_SOCKET per call. Without
 * that variable (not started by systemd) every call does nothing. Used by
 * both daemons.
 */
#ifndef IMATRUST_NOTIFY_H
#define IMATRUST_NOTIFY_H

/**
 * notify_send() - send @state ("READY=1\nSTATUS=...") to systemd.
 * @state: newline-separated assignments
 * Return: 1 sent, 0 no NOTIFY_SOCKET, -1 on error (errno set).
 */
int notify_send(const char *state);

/** notify_ready() - READY=1 with a STATUS= line. */
int notify_ready(const char *status);

/** notify_status() - STATUS= line only (what `systemctl status` shows). */
int notify_status(const char *status);

/** notify_stopping() - STOPPING=1. */
int notify_stopping(void);

#endif /* IMATRUST_NOTIFY_H */
