"""Benchmarks, apart from the package core: the deadwood solver against a naive search
(``deadwood``, ``naive``), the round engine (``engine``), ``rummy run`` end to end
against the bare kernel (``run``) and each command's cold start (``cold``). The
``rummy bench`` commands and the scripts in ``benchmarks/`` call them."""

# What a benchmark measures when not told: the ``rummy bench`` commands and the functions
# they call read these.
REPEAT = 3  # timed runs (or fresh processes) per row: their median, min and max
DEADWOOD_HANDS = 100_000  # random hands per timed deadwood call
DEADWOOD_REPEAT = 5
DEADWOOD_THREADS = 1  # one thread: nanoseconds per call, not the machine's throughput
RUN_DEALS = 2_000_000  # deals per timed call of rummy run against the bare kernel
