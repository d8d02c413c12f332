from verify_support import *  # noqa: F401,F403
