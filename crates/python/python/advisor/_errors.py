"""advisor's exceptions. The engine raises them; they carry what the command line prints."""

from typing import List, Optional, Sequence


class Error(Exception):
    """The base of advisor's exceptions."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CaptureError(Error, ValueError):
    """An input that cannot be used: a capture (or bundle) advisor cannot read, a topology
    document or prices file that is wrong. The message is the command line's (``file:line:col:
    ...``, one line per input when several failed); the attributes say where, for the first
    input that failed, and ``errors`` holds one ``CaptureError`` per input.
    """

    def __init__(
        self,
        message: str,
        *,
        file: Optional[str] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
        json_path: Optional[str] = None,
        xml_path: Optional[str] = None,
        csv_column: Optional[str] = None,
        errors: Sequence["CaptureError"] = (),
    ) -> None:
        super().__init__(message)
        self.file = file
        self.line = line
        self.column = column
        self.json_path = json_path
        self.xml_path = xml_path
        self.csv_column = csv_column
        self.errors: List[CaptureError] = list(errors) if errors else [self]


class UsageError(Error, ValueError):
    """An argument the command line would refuse: an unknown VM size, a bad ``set`` value, a
    rule folder that does not check, a wrong type."""


class InternalError(Error, RuntimeError):
    """A bug in advisor: it stopped (a panic, caught) instead of answering. The process goes on."""
