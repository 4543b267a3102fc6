"""The power cycle: gaining moves bowl I -> II first, then II -> III; spending moves III -> I."""

# terra-sim: compile


def gain_power(b1: int, b2: int, b3: int, amount: int) -> tuple[int, int, int]:
    """Bowls after gaining `amount` power; steps beyond a full bowl III are lost."""
    step = min(amount, b1)
    b1, b2 = b1 - step, b2 + step
    amount -= step
    step = min(amount, b2)
    return b1, b2 - step, b3 + step


def spend_power(b1: int, b2: int, b3: int, amount: int) -> tuple[int, int, int]:
    """Bowls after spending `amount` from bowl III; the caller checks b3 >= amount."""
    if amount > b3:
        raise ValueError(f"cannot spend {amount} power with {b3} in bowl III")
    return b1 + amount, b2, b3 - amount


def power_room(b1: int, b2: int) -> int:
    """How much power can still be gained before gains are wasted."""
    return 2 * b1 + b2
