#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# gen-boot-log.py - a tiny synthetic TCG PC Client crypto-agile event log
# (the shape of binary_bios_measurements) for test_boot_log.sh.
#
#   gen-boot-log.py OUT [TAG]
#
# Writes OUT: the Spec ID event (EV_NO_ACTION, SHA1-format header), then
# for PCRs 0-7 an EV_EFI_ACTION "TAG pcr N" and an EV_SEPARATOR, each with
# sha1 and sha256 digests of its event data. Prints one line per event,
# "PCR SHA1HEX SHA256HEX", the digests to extend into the TPM.
# GEN_BOOT_LOG_BANKS=sha256,sha384 (say) logs those banks instead, and
# prints their digests in that order. GEN_BOOT_LOG_MORE=11,12,14 (say)
# adds an EV_IPL "TAG pcr N" for each of those PCRs after the separators,
# as systemd-stub (11-13) and shim (14) measure.
import hashlib
import os
import struct
import sys

EV_NO_ACTION = 0x3
EV_SEPARATOR = 0x4
EV_IPL = 0xd
EV_EFI_ACTION = 0x80000007
BANKS = {'sha1': (0x0004, 20), 'sha256': (0x000b, 32),
         'sha384': (0x000c, 48), 'sha512': (0x000d, 64)}
ALGS = tuple((BANKS[n][0], n, BANKS[n][1]) for n in
             os.environ.get('GEN_BOOT_LOG_BANKS', 'sha1,sha256').split(','))


def spec_id_event():
    body = b'Spec ID Event03\0' + struct.pack('<IBBBBI', 0, 0, 2, 0, 2,
                                               len(ALGS))
    for alg, _, size in ALGS:
        body += struct.pack('<HH', alg, size)
    body += b'\0'   # vendorInfoSize
    return (struct.pack('<II', 0, EV_NO_ACTION) + b'\0' * 20 +
            struct.pack('<I', len(body)) + body)


def event2(pcr, kind, data, out):
    rec = struct.pack('<III', pcr, kind, len(ALGS))
    hexes = []
    for alg, name, _ in ALGS:
        d = hashlib.new(name, data).digest()
        rec += struct.pack('<H', alg) + d
        hexes.append(d.hex())
    out.append('%d %s' % (pcr, ' '.join(hexes)))
    return rec + struct.pack('<I', len(data)) + data


def main():
    tag = sys.argv[2] if len(sys.argv) > 2 else 'imatrust test'
    lines = []
    log = spec_id_event()
    for pcr in range(8):
        log += event2(pcr, EV_EFI_ACTION,
                      ('%s pcr %d' % (tag, pcr)).encode(), lines)
        log += event2(pcr, EV_SEPARATOR, b'\0\0\0\0', lines)
    more = os.environ.get('GEN_BOOT_LOG_MORE', '')
    for pcr in [int(p) for p in more.split(',') if p]:
        log += event2(pcr, EV_IPL, ('%s pcr %d' % (tag, pcr)).encode(),
                      lines)
    with open(sys.argv[1], 'wb') as f:
        f.write(log)
    print('\n'.join(lines))


main()
