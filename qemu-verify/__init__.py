"""atomic-janitor verify: apply a series to a pristine kernel copy, compile-test it, build a
tinyconfig test kernel, boot it in QEMU and parse the KTAP it prints.

The directory name has a hyphen, so it is loaded as the package ``qemu_verify`` by
``qemu-verify/__main__.py`` (``python3 qemu-verify run ...``) and by tests/verify/conftest.py.
Stages (kunit.py style): config | build | initramfs | boot | parse; ``run`` = all of them.
"""
