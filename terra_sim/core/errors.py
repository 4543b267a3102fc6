"""Error types. A UserError is a mistake the user can fix: the CLI prints it without a traceback."""


class UserError(Exception):
    """Bad input from the user (unknown name, malformed config or data file)."""


class DataError(UserError):
    """A game data file is malformed or inconsistent; the message names the file and field."""


class IllegalAction(Exception):
    """An action that is not legal in the current state (or not parseable)."""


class StrategyError(Exception):
    """A strategy raised, timed out or returned an illegal action: its seat forfeits the game."""

    def __init__(self, seat: int, strategy: str, message: str):
        super().__init__(f"seat {seat} ({strategy}): {message}")
        self.seat = seat
        self.strategy = strategy
        self.message = message

    def __reduce__(self) -> tuple:
        # a worker process sends it back pickled: rebuilt from its own arguments, not str(self)
        return type(self), (self.seat, self.strategy, self.message)
