#!/usr/bin/env python3
"""result-rp.py - a relying party of signed attestation results, written
with PyJWT and cryptography only (nothing of imatrust), for
test_results.sh.

  result-rp.py verify JWKS TOKEN MACHINE [NONCE]
      verify TOKEN (a file) with the key of JWKS (a file) whose kid the
      header names, as a network access controller would: ES256 only,
      exp and iat required, sub must be MACHINE, eat_nonce must be NONCE
      (or absent without one); print the claims as JSON, exit 0; else
      print why, exit 1
  result-rp.py tamper TOKEN       the token with ear.status "affirming"
                                  in its payload, the signature kept
  result-rp.py attacker TOKEN     the same claims and header, signed
                                  with a P-256 key of the attacker's own
  result-rp.py kid JWKS           the RFC 7638 thumbprint of the JWKS's
                                  key, computed here
"""
import base64
import hashlib
import json
import sys

import jwt
from cryptography.hazmat.primitives.asymmetric import ec

PROFILE = "tag:github.com,2023:veraison/ear"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verify(jwks_file, token_file, machine, nonce=None):
    jwks = json.load(open(jwks_file))
    token = open(token_file).read().strip()
    kid = jwt.get_unverified_header(token)["kid"]
    keys = [k for k in jwks["keys"] if k["kid"] == kid]
    if len(keys) != 1:
        sys.exit("no key %s in the JWK Set" % kid)
    key = jwt.PyJWK(keys[0]).key
    try:
        claims = jwt.decode(token, key, algorithms=["ES256"],
                            options={"require": ["exp", "iat", "sub"]})
    except jwt.PyJWTError as e:
        sys.exit("refused: %s: %s" % (type(e).__name__, e))
    if claims["sub"] != machine or machine not in claims["submods"]:
        sys.exit("refused: a result for %s, not %s" % (claims["sub"],
                                                        machine))
    if claims.get("eat_nonce") != nonce:
        sys.exit("refused: nonce %s, wanted %s" % (claims.get("eat_nonce"),
                                                    nonce))
    if claims["eat_profile"] != PROFILE:
        sys.exit("refused: profile %s" % claims["eat_profile"])
    print(json.dumps(claims))


def tamper(token_file):
    head, payload, sig = open(token_file).read().strip().split(".")
    claims = json.loads(unb64url(payload))
    for sub in claims["submods"].values():
        sub["ear.status"] = "affirming"
    payload = b64url(json.dumps(claims, separators=(",", ":")).encode())
    print("%s.%s.%s" % (head, payload, sig))


def attacker(token_file):
    token = open(token_file).read().strip()
    header = jwt.get_unverified_header(token)
    claims = json.loads(unb64url(token.split(".")[1]))
    key = ec.generate_private_key(ec.SECP256R1())
    print(jwt.encode(claims, key, algorithm="ES256",
                     headers={"kid": header["kid"]}))


def kid(jwks_file):
    k = json.load(open(jwks_file))["keys"][0]
    canon = json.dumps({m: k[m] for m in ("crv", "kty", "x", "y")},
                       separators=(",", ":"), sort_keys=True)
    print(b64url(hashlib.sha256(canon.encode()).digest()))


if __name__ == "__main__":
    {"verify": verify, "tamper": tamper, "attacker": attacker,
     "kid": kid}[sys.argv[1]](*sys.argv[2:])
