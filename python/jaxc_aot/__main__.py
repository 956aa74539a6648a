"""``python -m jaxc_aot FILE.jaxc ...``: print each exported program's target and signatures."""
import sys

from . import main

sys.exit(main())
