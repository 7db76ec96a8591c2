"""Ctrl-C during an awaitable frame evaluation: heard by the event loop
while the call runs, so that the rows finished can be handed back."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from typing import Any


class _CtrlC:
    """Ctrl-C during an awaitable frame evaluation, heard by its event loop
    (``loop.add_signal_handler``) rather than by the handler in place:
    asyncio.run's would cancel the task, and the rows finished would be
    lost with it (the ``KeyboardInterrupt`` asyncio.run raises then
    carries nothing).

    Installed only where that can be done and undone exactly: on the main
    thread, with a loop that takes signal handlers (not on Windows), when
    Ctrl-C has a Python handler (not ignored, as in a background job, nor
    left to kill the process, nor set from C, which could not be put back)
    and the loop does not already handle it itself (its owner's)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.installed = False
        self.removed = False
        self.previous: Any = None
        self.wakeup = -1
        self.times = 0
        self.heard: asyncio.Future[None] = loop.create_future()

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        previous = signal.getsignal(signal.SIGINT)
        if not callable(previous) or signal.SIGINT in getattr(self.loop, "_signal_handlers", {}):
            return
        try:
            # The loop points the wakeup fd at itself, and once it handles
            # no signal sets none: the one set before (read by setting
            # it) is put back afterwards.
            wakeup = signal.set_wakeup_fd(-1)
            signal.set_wakeup_fd(wakeup)
            self.loop.add_signal_handler(signal.SIGINT, self._heard)
        except (NotImplementedError, RuntimeError, ValueError, OSError):
            return  # no signals on this loop: cancellation is all there is
        self.previous, self.wakeup, self.installed = previous, wakeup, True

    def next(self) -> asyncio.Future[None]:
        """A future done at the next Ctrl-C (never, when not installed)."""
        if self.heard.done():
            self.heard = self.loop.create_future()
        return self.heard

    def _heard(self) -> None:
        if self.removed:
            # Queued before the handler was removed, run after: unless the
            # call already ended on a Ctrl-C (this one would only replace
            # its interrupt), the handler put back gets it, as it would
            # have a moment later.
            if not self.times:
                signal.raise_signal(signal.SIGINT)
            return
        self.times += 1
        if not self.heard.done():
            self.heard.set_result(None)

    def remove(self) -> None:
        self.removed = True
        if not self.installed:
            return
        # remove_signal_handler puts Python's default handler back, not
        # the one in place before (asyncio.run's, which asyncio.run then
        # would not take back itself: a later Ctrl-C would cancel a task
        # that is gone).
        self.loop.remove_signal_handler(signal.SIGINT)
        signal.signal(signal.SIGINT, self.previous)
        if self.wakeup != -1:
            with contextlib.suppress(ValueError, OSError):
                signal.set_wakeup_fd(self.wakeup)


async def _done_first(work: asyncio.Future[Any], interrupt: asyncio.Future[None]) -> bool:
    """Waits for ``work`` or ``interrupt``, whichever is done first; False
    when ``interrupt`` is done (it wins a tie). Cancelled, it cancels
    neither (``asyncio.wait``): the work is left for its owner to stop."""
    await asyncio.wait({work, interrupt}, return_when=asyncio.FIRST_COMPLETED)
    return not interrupt.done()


async def _wind_down(rows: asyncio.Future[Any], natives: asyncio.Future[Any], ctrl_c: _CtrlC) -> None:
    """Waits, after a Ctrl-C or a cancellation, for the Python evaluations
    cancelled to end and the built-in calls stopped to hand back the rows
    they finished.

    Another Ctrl-C meanwhile ends the wait for Python evaluations (one may
    ignore being cancelled), not for the built-in calls: they end within
    about 2 s (the grace of a judge's request in flight), their finished
    rows (paid judgements) come back only with them, and asyncio.run
    waits for their thread before it returns anyway. The task cancelled
    again ends the whole wait: what is finished by then is kept."""
    again = ctrl_c.next()
    with contextlib.suppress(asyncio.CancelledError):
        while not (natives.done() and (rows.done() or again.done())):
            waiting = {f for f in (rows, natives, again) if not f.done()}
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
