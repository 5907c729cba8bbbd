"""The one error path of the app's workers.

Every ``@work`` in the app runs with ``exit_on_error=False``: an exception a worker does
not expect (a bug, a library error) must become a notification, never a crash and never a
silent stop. Textual posts ``Worker.StateChanged`` to the node that started the worker
(it does not bubble), so each node that starts workers mixes this class in; a node that
must also undo something on failure (a spinner, a disabled button) overrides
:meth:`ReportsWorkerErrors.worker_failed`. Failures a person can act on (a refused
rewind, an unreadable file) are not exceptions here: workers catch those core errors
and post them in their result message.
"""

from __future__ import annotations

from textual.worker import Worker, WorkerState


def describe_failure(worker: Worker, error: BaseException) -> str:
    """One line for a failed worker: what it was doing and what was raised."""
    what = worker.description or worker.group or worker.name or "background work"
    return f"internal error in {what}: {type(error).__name__}: {error}"


class ReportsWorkerErrors:
    """Mixin for screens and widgets that start workers (see module docstring)."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is not WorkerState.ERROR or event.worker.error is None:
            return
        self.worker_failed(event.worker, event.worker.error)

    def worker_failed(self, worker: Worker, error: BaseException) -> None:
        """Tell the user (override to also restore the node's state)."""
        text = describe_failure(worker, error)
        self.log.error(text)  # type: ignore[attr-defined]
        self.notify(text, severity="error", markup=False, timeout=10)  # type: ignore[attr-defined]
