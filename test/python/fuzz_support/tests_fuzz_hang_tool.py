"""A stand-in tool for test_fuzz.py whose main() never returns and cannot be
interrupted by the worker's alarm (as when stuck inside C++)."""

import signal
import time


def main(argv):
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    while True:
        time.sleep(1)
