// SPDX-License-Identifier: GPL-2.0-only
/* imatrust-agent.c - STUB: replaced by the agent daemon work. */
int main(void)
{
	return 1;
}
