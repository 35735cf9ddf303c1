"""Builds the package with its numba kernels already compiled, so that an installed Brudno loads
them from the cache in about a second instead of compiling them on its first start (half a
minute or more: longer than Cute Chess waits for `readyok`). Everything else is in pyproject.toml.

The kernels are compiled by `python -m engine warmup` run on the build's copy of the package;
numba writes them into its `engine/__pycache__`, which goes into the wheel with the modules.
Numba's cache is checked by the content of each source file, its own version and the processor
(docs/startup.md): a wheel built where it is installed, as `pip install ./brudno` does, hits it.
An editable install (`pip install -e`, as scripts/brudno does) compiles in place instead.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithKernels(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode or os.environ.get("BRUDNO_NO_KERNEL_BUILD"):
            return
        env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
        # pip's isolated build environment reaches its packages through PYTHONPATH: keep them.
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.abspath(self.build_lib),
                                                          env.get("PYTHONPATH")]))
        started = time.monotonic()
        print("brudno: compiling the numba kernels into the package (about a minute)...",
              file=sys.stderr, flush=True)
        result = subprocess.run([sys.executable, "-m", "engine", "warmup"], cwd=self.build_lib,
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)
        if result.returncode != 0:
            # Not fatal: the engine then compiles them on its first start, into the same cache.
            print(f"brudno: the kernels were not compiled ({result.stderr.strip()[-500:]}); "
                  "the first start will compile them", file=sys.stderr, flush=True)
            return
        print(f"brudno: kernels compiled in {time.monotonic() - started:.0f} s", file=sys.stderr,
              flush=True)


setup(cmdclass={"build_py": BuildWithKernels})
