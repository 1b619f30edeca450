"""``python -m rummy``: the ``rummy`` command itself (the same options, output and exit
statuses), for an environment whose scripts folder is not on the PATH."""

from sim.cli import app

if __name__ == "__main__":
    app(prog_name="rummy")
