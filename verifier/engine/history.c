// SPDX-License-Identifier: GPL-2.0-only
/*
 * history.c - where a batch starts when the machine deleted its oldest
 * records (history.h): the list start the evidence says, checked after
 * the quote is known to be the enrolled TPM's and fresh, so nobody
 * without that TPM can move it.
 */
#include <string.h>

#include "attest.h"
#include "history.h"

/*
 * L <= S: the verifier's own running value stands. At L == S it is the
 * very value the agent claims: they must agree.
 */
static int check_anchor(struct attest *a, uint64_t s)
{
	const struct wire_evidence *ev = a->ev;

	if (ev->list_start != s || ev->list_start_pcr_len == 0)
		return 0;
	if (ev->list_start_pcr_len != ev->bank->size ||
	    memcmp(attest_running(a), ev->list_start_pcr, ev->bank->size) != 0)
		return attest_fail(a, "list_start_pcr",
				   "list_start_pcr is not the %s PCR 10 the verifier replayed over records 0..%llu of this boot",
				   ev->bank->name, (unsigned long long)(s - 1));
	return 0;
}

int history_apply(struct attest *a)
{
	const struct wire_evidence *ev = a->ev;
	uint64_t s = a->next, l = ev->list_start;
	size_t k;

	a->gap_from = 0;
	a->gap_to = 0;
	if (l <= s)
		return check_anchor(a, s);
	if (ev->list_start_pcr_len != ev->bank->size)
		return attest_fail(a, "history",
				   "records %llu..%llu of this boot were deleted from the machine before the verifier stored them, and the evidence has no list_start_pcr to replay from %llu: no record can be proven",
				   (unsigned long long)s,
				   (unsigned long long)(l - 1),
				   (unsigned long long)l);
	a->gap_from = s;
	a->gap_to = l;
	a->next = l;
	/* only the quoted bank is known past the gap: a later quote of
	 * another one (bank_change = allow) cannot be replayed, and another
	 * wide bank is no longer carried (the quoted one is: attest.c's
	 * check_bank_carried() came first) */
	memset(a->pcr10, 0, sizeof(a->pcr10));
	for (k = ATTEST_WIDE; k < ATTEST_BANKS; k++)
		a->kept[k] = attest_bank(k) == ev->bank;
	memcpy(attest_running(a), ev->list_start_pcr, ev->bank->size);
	return 0;
}
