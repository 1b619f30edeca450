"""Benchmarks, apart from the package core: the deadwood solver against a naive search
(``deadwood``, ``naive``), the round engine (``engine``), ``rummy run`` end to end
against the bare kernel (``run``) and each command's cold start (``cold``). The
``rummy bench`` commands and the scripts in ``benchmarks/`` call them."""
