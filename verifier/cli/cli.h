/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli.h - the imatrust command table.
 */
#ifndef IMATRUST_CLI_H
#define IMATRUST_CLI_H

#include <jansson.h>

struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the name */
	const char *help;
};

/**
 * cli_dispatch() - run the entry of @table named by @argv[1].
 * @group: the command group, for messages ("log"); NULL at top level
 * @table: NULL-terminated command table
 * @argc: argument count, @argv[0] being the group's own name
 * @argv: arguments
 *
 * Return: the command's exit code, or CLI_EXIT_USAGE after printing help.
 */
int cli_dispatch(const char *group, const struct cli_command *table, int argc,
		 char **argv);

int cli_log_main(int argc, char **argv);

/* cli_fleet.c: the fleet over the REST API */
int cli_machines_main(int argc, char **argv);
int cli_machine_main(int argc, char **argv);
/*
 * cli_fleet_boot_cell() - the BOOT cell of `machines --boot` from the
 * answer @ans (may be NULL) of GET /v1/machines/ID/boot-log, @status:
 * "BIOS" (a log without EV_EFI_* events), "UEFI SB on|off", "UEFI SB ?"
 * (SecureBoot not measured, or its event's data not what was measured),
 * "SHA-1 log" (TCG 1.2, judged as none), "no log" (none this boot),
 * "log STATUS" (another answer).
 */
void cli_fleet_boot_cell(long status, json_t *ans, char *buf, size_t n);
/* cli_boot_log.c: "machine ID boot-log ..."; @argv[0] is "boot-log" */
int cli_machine_boot_log(const char *id, int argc, char **argv);
/* cli_boot_log.c: the decoded JSON of boot_log_json() as text lines */
void cli_boot_log_print(json_t *log);
/* cli_boot_file.c: imatrust boot-log FILE, offline */
int cli_boot_file_main(int argc, char **argv);

/* cli_boot_baseline.c: "machine ID boot-baseline approve" */
int cli_machine_boot_baseline(const char *id, int argc, char **argv);
/* cli_result.c: "machine ID result [--nonce B64URL] [--json]" */
int cli_machine_result(const char *id, int argc, char **argv);
int cli_events_main(int argc, char **argv);
/* imatrust records ID [--verdict V]: the current boot's records. */
int cli_records_main(int argc, char **argv);
/* imatrust wait ID STATE (cli_wait.c), imatrust api GET PATH */
int cli_wait_main(int argc, char **argv);
int cli_api_main(int argc, char **argv);
int cli_approve_main(int argc, char **argv);
int cli_audit_main(int argc, char **argv);
/* cli_whoami.c: the token's name, role, expiry and last use */
int cli_whoami_main(int argc, char **argv);

/* cli_ref.c: reference digests over the REST API */
int cli_ref_main(int argc, char **argv);

/* cli_ref_import.c: imports the verifier parses, retiring a source */
int cli_ref_import_deb(int argc, char **argv);
int cli_ref_import_archive(int argc, char **argv);
int cli_ref_import_list(int argc, char **argv);
int cli_ref_import_keylime(int argc, char **argv);
int cli_ref_export_keylime(int argc, char **argv);
int cli_ref_retire(int argc, char **argv);
/* cli_ref_efi.c: EFI applications' Authenticode digests */
int cli_ref_import_efi(int argc, char **argv);
/* cli_ref_uki.c: a UKI's sections as the boot policy's "uki" entry */
int cli_ref_uki(int argc, char **argv);
/* cli_policy.c: named policies over the REST API */
int cli_policy_main(int argc, char **argv);

/* cli_key.c: signature keys over the REST API */
int cli_key_main(int argc, char **argv);

/* cli_webhook.c: webhook endpoints over the REST API */
int cli_webhook_main(int argc, char **argv);
/* cli_verify.c: imatrust verify BUNDLE.json, one-shot, stores nothing */
int cli_verify_main(int argc, char **argv);

#endif /* IMATRUST_CLI_H */
