"""The `tokenizer-workbench` command: with no command, the window; else the parser, which hands
each command to its module (`train`, `count`, `encode`, `inspect`, `convert`, `screenshots`).

Argument parsing and messages only; all tokenizer work is `engine`'s. Every engine error becomes
one line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import multiprocessing
import signal
import sys
from collections.abc import Sequence
from typing import NoReturn

import engine
from engine.errors import EngineError
from workbench.cli import audit, convert, count, encode, inspect, screenshots, self_test, train
from workbench.core.build_info import build_info
from workbench.cli.common import EXIT_ERROR, EXIT_USAGE, PROG, WRITTEN, CliError
from workbench.cli.stopping import (
    EXIT_BROKEN_PIPE,
    SIGNALLED,
    Terminated,
    on_termination,
    silence_output,
    standard_streams,
    stopped_by,
    terminate,
    writes_files,
)

COMMANDS = ("train", "count", "encode", "inspect", "convert", "audit", "screenshots")


def _version() -> str:
    build = "engine compiled with mypyc" if engine.COMPILED else "engine: pure Python build"
    return f"{PROG} {engine.__version__} ({build}; {build_info().describe()})"


def install_desktop_entry() -> int:
    from workbench.core import desktop_entry

    try:
        written = desktop_entry.install()
    except OSError as error:
        name = f"{error.filename}: " if error.filename is not None else ""
        print(f"{PROG}: error: {name}{error.strerror or error}", file=sys.stderr)
        return EXIT_ERROR
    print(f"wrote {written[0]} (it starts {' '.join(desktop_entry.command())}) and the icon in {len(written) - 1} sizes")
    return 0


class VersionAction(argparse.Action):
    """--version: one line, never wrapped (argparse's own wraps it at the terminal's width)."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, argparse.SUPPRESS, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object, option_string: str | None = None) -> None:
        print(_version())
        parser.exit()


class OneLineParser(argparse.ArgumentParser):
    """argparse with usage errors as one line on stderr (`tokenizer-workbench train: error:
    argument --vocab-size: invalid int value: 'ten'; see --help`), exit status 2."""

    def error(self, message: str) -> NoReturn:
        name = self.prog.split(" ... ")[-1] if " ... " in self.prog else self.prog
        command = name if name.startswith(PROG) else f"{PROG} {name}"
        self.exit(EXIT_USAGE, f"{command}: error: {message}; see {command} --help\n")


def make_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=PROG,
        usage=f"{PROG} [FILE] | {PROG} COMMAND ...",
        description="Train, inspect and compare subword tokenizers. With no command, opens the "
        "workbench window: on FILE when given (a .tokproj project, or a tokenizer file to inspect: "
        "tokenizer.json, SentencePiece .model, .tiktoken, BERT vocab.txt, GPT-2 vocab.json), "
        "else on the last project (the sample project the first time).",
    )
    parser.add_argument("--version", action=VersionAction, help="say the version, the engine's build and how this was built")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="check this installation headless: train the sample project's tokenizer and three others "
        "through the real training process, encode, decode, export every format and read it back; "
        "exit 0 when every step passed",
    )
    parser.add_argument(
        "--install-desktop-entry",
        action="store_true",
        help="put the workbench in the desktop's menus with its icon, for this user "
        "(~/.local/share/applications and icons), starting this installation",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in (train, count, encode, inspect, convert, audit, screenshots):
        command.add_parser(sub)

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # In the desktop bundle every child process (training, encoding, the counting pool's
    # resource tracker) starts as this same executable with multiprocessing's own arguments
    # (`--multiprocessing-fork tracker_fd=9 pipe_handle=12`): PyInstaller's freeze_support runs
    # the child there and exits, before those arguments reach the parser. Outside a bundle it
    # does nothing.
    multiprocessing.freeze_support()
    words = list(sys.argv[1:] if argv is None else argv)
    if words == ["--self-test"]:
        return self_test.run()
    if words == ["--install-desktop-entry"]:
        return install_desktop_entry()
    if not words or (words[0] not in COMMANDS and not words[0].startswith("-")):
        # No command: the window, on FILE (a project or a tokenizer file) when one is given.
        if len(words) > 1:
            print(f"{PROG}: error: give one file to open, or a command ({', '.join(COMMANDS)})", file=sys.stderr)
            return EXIT_USAGE
        from workbench.window.app import run_window

        return run_window(words[0] if words else None)
    standard_streams()
    parser = make_parser()
    args = parser.parse_args(words)
    if args.self_test or args.install_desktop_entry:
        option = "--self-test" if args.self_test else "--install-desktop-entry"
        parser.error(f"{option} takes no other arguments")
    previous = on_termination(terminate)
    try:
        code = int(args.func(args))
        if sys.stdout is not None:
            sys.stdout.flush()  # (a closed pipe shows here, not in the interpreter's last flush)
        return code
    except BrokenPipeError:
        # the reader went away (`| head`): stop quietly, as a tool killed by SIGPIPE does
        silence_output()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt as interrupt:
        signum = interrupt.signum if isinstance(interrupt, Terminated) else signal.SIGINT
        return stopped_by(signum, writes_files(args))
    except (EngineError, CliError) as error:
        if SIGNALLED:
            # (a child stopped by the same signal may be noticed first)
            return stopped_by(SIGNALLED[0], writes_files(args))
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as error:
        name = f"{error.filename}: " if error.filename is not None else ""
        print(f"{PROG}: error: {name}{error.strerror or error}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        on_termination(previous)
        SIGNALLED.clear()
        WRITTEN.clear()


if __name__ == "__main__":
    sys.exit(main())
