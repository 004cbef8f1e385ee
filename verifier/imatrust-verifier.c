// SPDX-License-Identifier: GPL-2.0-only
/* imatrust-verifier.c - STUB: the daemon's main comes next. */
int main(void)
{
	return 1;
}
