// SPDX-License-Identifier: GPL-2.0-only
/*
 * tpm_mux.c - let several test processes share one swtpm, as the kernel's
 * /dev/tpmrm0 lets the agent and IMA share a real TPM.
 *
 * swtpm serves one client connection at a time, but an integration test
 * has two: the agent (which keeps its connection) and the harness that
 * plays the kernel and extends PCR 10. This forwards whole TPM commands
 * from any client, one at a time, over a single connection to swtpm.
 * Each command is atomic; there is no resource manager, so clients must
 * not flush each other's objects (the harness only extends PCRs).
 *
 *	tpm_mux LISTEN_PORT SWTPM_PORT
 *
 * Clients use "swtpm:host=127.0.0.1,port=LISTEN_PORT". The swtpm TCTI
 * also opens the control port (LISTEN_PORT + 1) to set the locality
 * before each command; that is answered here (locality 0 only, which is
 * what the agent and the PCR 10 extend use). Runs until killed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CLIENTS_MAX 16
#define TPM_BUF_MAX 8192   /* swtpm's TPM_BUFFER_MAX is 4096 */
#define CMD_SET_LOCALITY 5 /* swtpm control command */

static int listen_on(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 16) < 0) {
		perror("tpm_mux: listen");
		exit(2);
	}
	return fd;
}

static int connect_to(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("tpm_mux: connect to swtpm");
		exit(2);
	}
	return fd;
}

static int read_full(int fd, uint8_t *buf, size_t len)
{
	size_t n = 0;

	while (n < len) {
		ssize_t r = read(fd, buf + n, len - n);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		n += (size_t)r;
	}
	return 0;
}

static int write_full(int fd, const uint8_t *buf, size_t len)
{
	size_t n = 0;

	while (n < len) {
		ssize_t r = write(fd, buf + n, len - n);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		n += (size_t)r;
	}
	return 0;
}

/* One TPM message (command or response): 10-byte header with its size. */
static int read_message(int fd, uint8_t *buf, size_t *len)
{
	uint32_t size;

	if (read_full(fd, buf, 10) < 0)
		return -1;
	size = (uint32_t)buf[2] << 24 | (uint32_t)buf[3] << 16 |
	       (uint32_t)buf[4] << 8 | buf[5];
	if (size < 10 || size > TPM_BUF_MAX)
		return -1;
	if (read_full(fd, buf + 10, size - 10) < 0)
		return -1;
	*len = size;
	return 0;
}

/* A command from a client: forward it and return swtpm's response. */
static int serve_data(int client, int tpm)
{
	static uint8_t buf[TPM_BUF_MAX];
	size_t len;

	if (read_message(client, buf, &len) < 0)
		return -1;
	if (write_full(tpm, buf, len) < 0 || read_message(tpm, buf, &len) < 0) {
		fprintf(stderr, "tpm_mux: swtpm went away\n");
		exit(1);
	}
	return write_full(client, buf, len);
}

/* A control command: only SET_LOCALITY 0 is expected; answer success. */
static int serve_ctrl(int client)
{
	static const uint8_t ok[4], fail[4] = { 0, 0, 0, 0x0a };
	uint8_t cmd[5];

	if (read_full(client, cmd, 4) < 0)
		return -1;
	if (cmd[3] == CMD_SET_LOCALITY && read_full(client, cmd + 4, 1) == 0)
		return write_full(client, cmd[4] == 0 ? ok : fail, 4);
	fprintf(stderr, "tpm_mux: control command %u not supported\n", cmd[3]);
	write_full(client, fail, 4);
	return -1;
}

int main(int argc, char **argv)
{
	struct pollfd pfd[2 + CLIENTS_MAX];
	int is_ctrl[2 + CLIENTS_MAX];
	size_t n = 2, i;
	int tpm;

	if (argc != 3) {
		fprintf(stderr, "usage: tpm_mux LISTEN_PORT SWTPM_PORT\n");
		return 2;
	}
	pfd[0] = (struct pollfd){ listen_on(atoi(argv[1])), POLLIN, 0 };
	pfd[1] = (struct pollfd){ listen_on(atoi(argv[1]) + 1), POLLIN, 0 };
	tpm = connect_to(atoi(argv[2]));
	for (;;) {
		if (poll(pfd, n, -1) < 0 && errno != EINTR)
			return 1;
		for (i = 0; i < 2; i++) {
			int fd;

			if (!(pfd[i].revents & POLLIN))
				continue;
			fd = accept(pfd[i].fd, NULL, NULL);
			if (fd < 0)
				continue;
			if (n == 2 + CLIENTS_MAX) {
				close(fd);
				continue;
			}
			is_ctrl[n] = i == 1;
			pfd[n++] = (struct pollfd){ fd, POLLIN, 0 };
		}
		for (i = 2; i < n; i++) {
			int rc;

			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			rc = is_ctrl[i] ? serve_ctrl(pfd[i].fd) :
					  serve_data(pfd[i].fd, tpm);
			if (rc < 0) {
				close(pfd[i].fd);
				pfd[i] = pfd[n - 1];
				is_ctrl[i] = is_ctrl[n - 1];
				n--;
				i--;
			}
		}
	}
}
