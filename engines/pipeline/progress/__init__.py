"""Progress: each job's timing record (``timings``: the one reader and writer), the time left as a pure
model of a snapshot of the files (``progress_model``, priced by ``pricing`` and ``run_costs``), read from
disk by ``snapshot``, and said in words by ``live`` and ``status`` (``cardlab status``, ``cardlab run``'s
live view)."""
