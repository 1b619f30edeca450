"""An S3 object store on this machine's loopback address, for the results-in-S3 tests.

moto's S3 server (``moto.server.ThreadedMotoServer``) in a thread of the test process:
real HTTP, real S3 requests from pyarrow's own client, on 127.0.0.1 only. Fake
credentials in the environment, as pyarrow reads them (moto accepts any); the EC2
metadata service is switched off so that no client waits for one.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

import pytest

CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",
}
_names = itertools.count()


class Store(NamedTuple):
    """The running server: its address, and a fresh bucket per call of :meth:`bucket`."""

    endpoint: str  # host:port

    @property
    def options(self) -> str:
        return f"endpoint_override={self.endpoint}&scheme=http"

    def uri(self, bucket: str, prefix: str = "") -> str:
        return f"s3://{bucket}/{prefix}?{self.options}"

    def bucket(self) -> str:
        """A new, empty bucket's name (made with pyarrow: rummy itself never makes one)."""
        import pyarrow.fs as pafs

        name = f"results-{next(_names)}"
        admin = pafs.S3FileSystem(
            endpoint_override=self.endpoint, scheme="http", allow_bucket_creation=True
        )
        admin.create_dir(name)
        return name


@contextmanager
def s3_server() -> Iterator[Store]:
    """moto's S3 on 127.0.0.1 (a free port), the fake credentials set while it runs."""
    server_module = pytest.importorskip("moto.server", reason="pip install 'moto[server]'")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    with pytest.MonkeyPatch.context() as patch:
        for key, value in CREDENTIALS.items():
            patch.setenv(key, value)
        server.start()
        try:
            host, port = server.get_host_and_port()
            yield Store(f"{host}:{port}")
        finally:
            server.stop()
