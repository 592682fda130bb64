"""Ctrl-C during a long search raises KeyboardInterrupt promptly and leaves nothing behind: a
child process anonymizes ADULT replicated (a temporary folder of its own as TMPDIR), gets
SIGINT once the search has started, and must end with KeyboardInterrupt within seconds and
leave its temporary folder empty."""

import os
import signal
import subprocess
import sys
import textwrap
import time

from conftest import ADULT, ATTRIBUTES, hierarchy

SCRIPT = textwrap.dedent(
    """
    import sys, time
    import pyarrow as pa, pyarrow.csv as pacsv
    import anonbox
    t = pacsv.read_csv(sys.argv[1], parse_options=pacsv.ParseOptions(delimiter=";"))
    t = pa.concat_tables([t] * int(sys.argv[2]))
    qis = dict(zip(sys.argv[3::2], sys.argv[4::2]))
    print("started", flush=True)
    start = time.monotonic()
    try:
        anonbox.anonymize(t, quasi_identifiers=qis, k=5, method="BFS", suppression=0.05)
    except KeyboardInterrupt:
        print("interrupted after %.2f" % (time.monotonic() - start), flush=True)
        raise
    print("finished", flush=True)
    """
)


def test_ctrl_c_raises_keyboard_interrupt_and_leaves_nothing(tmp_path):
    # The signal must come while the run works: a machine that finishes ADULT x40 before it
    # gets four times the records (the run's speed is not the test's subject).
    for copies in (40, 160):
        tmp = tmp_path / f"tmp{copies}"
        tmp.mkdir()
        args = [sys.executable, "-c", SCRIPT, str(ADULT / "adult.csv"), str(copies)]
        for a in ATTRIBUTES:
            args += [a, hierarchy(a)]
        env = dict(os.environ, TMPDIR=str(tmp))
        child = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        assert child.stdout.readline().strip() == "started"
        time.sleep(0.3)
        if child.poll() is not None:
            child.communicate()
            continue
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        try:
            out, err = child.communicate(timeout=10)
        finally:
            child.kill()
        ended = time.monotonic() - sent
        assert "KeyboardInterrupt" in err, err
        assert "interrupted after" in out and "finished" not in out
        assert ended < 5, f"took {ended:.1f} s to stop"
        assert child.returncode != 0
        assert list(tmp.iterdir()) == []
        return
    raise AssertionError("every run ended before the signal: make them longer")
