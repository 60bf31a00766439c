import os
import sys

# The model lives in scripts/scaleout; tests import it as the command does.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
