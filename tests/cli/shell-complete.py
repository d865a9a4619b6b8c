#!/usr/bin/env python3
"""Completes a command line in a real interactive bash or zsh.

    shell-complete.py SHELL COMPLETIONS-DIR 'mcinit va' ['mcinit validate m' ...]

The shell runs on a pseudo-terminal with mcinit's completion script loaded;
the line is typed followed by TAB, exactly as a user would.  A thin hook
records what the completion offered: bash's COMPREPLY after _mcinit, and for
zsh every match compadd accepted (the completion system's own matching
applied).  For each line, "== LINE" is printed, then its candidates one per
line.  One shell answers every line (zsh's compinit takes a second).  `mcinit`
must be on PATH.  Exit 77 when the shell is not installed, 1 when it never answered.
"""
import os
import pty
import select
import shutil
import sys
import tempfile
import time

BASH_INIT = r"""
source '{dir}/mcinit.bash'
__cap() {{ _mcinit "$@"; printf '%s\n' "${{COMPREPLY[@]}}" >>'{cap}.part'; }}
complete -F __cap mcinit
"""

# compadd is wrapped only while it adds matches (not when the completion
# functions use it to test or collect with -O/-A/-D).
ZSH_INIT = r"""
fpath=('{dir}' $fpath)
autoload -Uz compinit && compinit -u -D
compadd() {{
  if (( ${{@[(I)-[OAD]]}} )); then builtin compadd "$@"; return; fi
  local -a __m
  builtin compadd -O __m "$@"
  (( $#__m )) && print -rl -- $__m >>'{cap}.part'
  builtin compadd "$@"
}}
"""


def main():
    shell, comp_dir, lines = sys.argv[1], sys.argv[2], sys.argv[3:]
    exe = shutil.which(shell)
    if exe is None:
        print(f"{shell} is not installed", file=sys.stderr)
        return 77
    tmp = tempfile.mkdtemp()
    cap = os.path.join(tmp, "cap")  # the shell's cwd stays the caller's
    if shell == "bash":
        argv = [exe, "--norc", "--noprofile", "-i"]
        init = BASH_INIT
    else:
        argv = [exe, "-f", "-i"]
        init = ZSH_INIT
    env = dict(os.environ, PS1="$ ", PROMPT="$ ", INPUTRC="/dev/null", TERM="dumb", HOME=tmp)
    env.pop("ENV", None)
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(exe, argv, env)
    seen = b""
    # generous: under load (the sanitizer pass, two jobs on two cores) each
    # completion runs mcinit, and only a failure waits this long
    deadline = time.time() + 180

    def read_until(done):
        nonlocal seen
        while time.time() < deadline and not done():
            r, _, _ = select.select([fd], [], [], 0.1)
            if r:
                try:
                    seen += os.read(fd, 65536)
                except OSError:
                    return

    # Type the line only once the shell's line editor reads the terminal
    # (typed ahead, the terminal driver would take TAB and ^U itself).
    os.write(fd, (init.format(dir=comp_dir, cap=cap) + "echo RE''ADY\n").encode())
    read_until(lambda: b"READY" in seen.replace(b"RE''ADY", b""))
    out = []
    for n, line in enumerate(lines):
        # Keystrokes are handled in order: once TAB's completion is done, ^U
        # clears the line and the mv marks the capture complete.
        os.write(fd, f"{line}\t".encode())
        time.sleep(0.2)
        done = f"{cap}.{n}"
        os.write(fd, f"\x15touch '{cap}.part'; mv '{cap}.part' '{done}'\n".encode())
        read_until(lambda: os.path.exists(done))
        if not os.path.exists(done):
            break
        with open(done) as f:
            out.append(f"== {line}\n" + f.read())
    try:
        os.write(fd, b"\x15exit\n")
    except OSError:
        pass
    time.sleep(0.1)
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    if os.environ.get("SHELL_COMPLETE_DEBUG"):
        sys.stderr.write(seen.decode(errors="replace"))
    sys.stdout.write("".join(out))
    shutil.rmtree(tmp)
    if len(out) < len(lines):
        sys.stderr.write(seen.decode(errors="replace")[-2000:])
        print(f"\n{shell} did not complete {lines[len(out)]!r}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
