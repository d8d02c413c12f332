"""make patches: python3 -m atomic_janitor.patches"""
