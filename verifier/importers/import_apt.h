/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import_apt.h - the packages of an apt archive: its `Packages` index
 * (plain, .gz or .xz) and the .deb files it lists.
 *
 * An index is RFC 822 stanzas (deb822.h), one per package; each must
 * have Package, Version, Architecture, Filename, Size and SHA256. A local
 * archive is laid out flat (DIR/Packages*, as `apt-ftparchive packages`
 * and `dpkg-scanpackages` write it) or as a mirror
 * (DIR/dists/SUITE/COMPONENT/binary-ARCH/Packages*); Filename is relative
 * to DIR either way.
 */
#ifndef IMATRUST_IMPORT_APT_H
#define IMATRUST_IMPORT_APT_H

#include <stddef.h>
#include <stdint.h>

#include "import_deb.h"
#include "result.h"

#define APT_INDEX_MAX (1024u << 20) /* uncompressed index bytes */

/* One package of an index; the strings are NUL-terminated. */
struct apt_entry {
	const char *package;
	const char *version;
	const char *architecture;
	const char *filename; /* as the index has it, relative */
	const char *path;     /* DIR/filename (NULL from import_apt_index) */
	uint64_t size;
	uint8_t sha256[32];
	size_t stanza; /* 1-based, in the index */
};

/**
 * typedef apt_entry_fn - one package of an index.
 * @arg: the caller's
 * @e: the entry; its strings are borrowed for the call only
 * @err: fill and return -1 to stop
 *
 * Return: 0 to go on, -1 to stop.
 */
typedef int (*apt_entry_fn)(void *arg, const struct apt_entry *e,
			    struct imt_error *err);

/**
 * import_apt_index() - parse an apt `Packages` index.
 * @buf: the index: plain, gzip or xz, recognised by its content
 * @len: its length
 * @fn: called for each package, in index order
 * @arg: for @fn
 * @err: what was wrong: "stanza 3 (Package foo): no SHA256 field", "...:
 *	bad Size field", "xz stream truncated or corrupt after 1234
 *	uncompressed bytes (in stanza 7, Package bar)", or @fn's error
 *
 * The whole index is checked before @fn is first called: a truncated or
 * corrupt index yields no entry at all.
 *
 * Return: 0, or -1 with @err filled.
 */
int import_apt_index(const uint8_t *buf, size_t len, apt_entry_fn fn, void *arg,
		     struct imt_error *err);

/**
 * apt_archive_index_path() - the index files of the archive in @dir.
 * @dir: the archive's top directory
 * @fn: called with each index path (its files are named relative to
 *	@dir): DIR/Packages, else DIR/Packages.xz, else DIR/Packages.gz;
 *	then, in sorted order, the same in each
 *	DIR/dists/SUITE/COMPONENT/binary-ARCH/
 * @arg: for @fn
 * @err: "DIR: no Packages index (flat or dists/...)" when there is none
 *
 * Return: the number of indexes (> 0), or -1 with @err filled (or @fn's
 * error: @fn returns 0 or -1 as apt_entry_fn does).
 */
int apt_archive_index_path(const char *dir,
			   int (*fn)(void *arg, const char *path,
				     struct imt_error *err),
			   void *arg, struct imt_error *err);

/**
 * apt_archive_each() - every package of the archive in @dir.
 * @dir: as apt_archive_index_path()
 * @fn: called for each entry, with @e->path set to DIR/FILENAME
 * @arg: for @fn
 * @err: the failing index named ("DIR/Packages.xz: stanza ...")
 *
 * Return: 0, or -1 with @err filled.
 */
int apt_archive_each(const char *dir, apt_entry_fn fn, void *arg,
		     struct imt_error *err);

/**
 * typedef apt_import_fn - one package of an archive is read.
 * @arg: the caller's
 * @e: its index entry (path absolute)
 * @perr: NULL when it was read whole, else why not: the file is missing,
 *	its size or SHA-256 is not the index's ("DIR/pool/x.deb: SHA256
 *	differs from the index's"), it is not the package the index says, or
 *	it is malformed
 * @info: what import_deb() found
 * @refs: its references for import_deb_replay() (NULL with @perr)
 * @err: fill and return -1 to stop the import
 *
 * Return: 0 to go on, -1 to stop.
 */
typedef int (*apt_import_fn)(void *arg, const struct apt_entry *e,
			     const struct imt_error *perr,
			     const struct deb_info *info,
			     const struct deb_refs *refs,
			     struct imt_error *err);

/**
 * apt_archive_import() - read every package of the archive in @dir.
 * @dir: as apt_archive_index_path()
 * @algos: as import_deb()
 * @nalgos: as import_deb()
 * @nthreads: as import_deb_files()
 * @fn: called once per entry, in index order, one call at a time (as
 *	import_deb_files() calls its function)
 * @arg: for @fn
 * @err: an index's error, or @fn's when it stopped
 *
 * Each file's size and SHA-256 are checked against the index before it is
 * read as a package, and its Package, Version and Architecture against
 * the entry's.
 *
 * Return: 0, or -1 with @err filled.
 */
int apt_archive_import(const char *dir, const char *const *algos, size_t nalgos,
		       unsigned int nthreads, apt_import_fn fn, void *arg,
		       struct imt_error *err);

#endif /* IMATRUST_IMPORT_APT_H */
