"""run_unittest.py TEST_FILE: runs one unittest file; exits 0 when everything passed, 77 when
every test was skipped (ctest then reports the test as skipped, with the reasons printed), 1 on
any failure."""
import os
import sys
import unittest

path = sys.argv[1]
sys.path.insert(0, os.path.dirname(path))
suite = unittest.defaultTestLoader.discover(os.path.dirname(path), pattern=os.path.basename(path))
result = unittest.TextTestRunner(verbosity=2).run(suite)
if not result.wasSuccessful():
    sys.exit(1)
sys.exit(77 if result.testsRun and len(result.skipped) == result.testsRun else 0)
