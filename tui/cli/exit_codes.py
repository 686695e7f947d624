"""The exit codes every ``chambers`` command shares, so a script can tell its outcomes apart.

0 clean; 1 something blocks (a verifier flag, a gate "no", a doctor error, a leak found); 2 the
command was given something it cannot use (a usage error, a missing file, a bad config); 3 a
model server refused or is down, or the policy refused its address. 130 and 141 are the shell's
own codes for Ctrl-C (SIGINT) and a closed pipe (SIGPIPE): 128 plus the signal's number.
"""

from __future__ import annotations

CLEAN = 0
BLOCKED = 1
USAGE = 2
BACKEND = 3
UNVERIFIABLE = 4  # `chambers verify`: nothing contradicted, but items it could not check are unacknowledged
INTERRUPTED = 130
BROKEN_PIPE = 141

HELP = """exit codes:
  0    clean: the command did what it was asked and found nothing that blocks
  1    something blocks: a verifier flag, the gate's "no basis", a doctor error, a leak
  2    usage or input error: a bad option, a missing file or matter, a config problem,
       a prompt longer than the server's context
  3    a model server refused or is down, or the local-only policy refused its address
  4    verify only: nothing is contradicted, but unverifiable items are not yet acknowledged
  130  stopped with Ctrl-C (what was done is kept)
  141  the reader of the output went away (for example `| head`)"""


def for_error(exc: BaseException) -> int:
    """The exit code for a domain error: BACKEND when a server or the policy refused, else USAGE."""
    # Imported here: `chambers --help` should not pay for httpx.
    from backends.errors import BackendError, PolicyRefusal
    from drafting.refusal import PromptTooLong, StageRefused

    if isinstance(exc, PromptTooLong):  # the server is up: the prompt is the input to change
        return USAGE
    if isinstance(exc, BackendError | PolicyRefusal | StageRefused):
        return BACKEND
    return USAGE
