#!/usr/bin/env python3
"""Runs `age -p` (passphrase mode) as a person would, at a terminal: age 1.1 reads a passphrase only from
/dev/tty, so age runs on a pseudo-terminal of its own and each prompt is answered with the passphrase.

    age-passphrase.py PASSPHRASE AGE_ARGUMENTS...

Exits with age's status. The time this adds to age's is a Python start and a pty (milliseconds).
"""
import os
import pty
import sys


def main():
    passphrase = sys.argv[1].encode() + b"\r"
    pid, master = pty.fork()
    if pid == 0:
        os.execvp("age", ["age", *sys.argv[2:]])
    seen = b""
    answered = 0
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        seen += data
        # One answer per prompt: "Enter passphrase…:" and "Confirm passphrase:" when encrypting.
        while seen.count(b"passphrase") > answered:
            os.write(master, passphrase)
            answered += 1
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
