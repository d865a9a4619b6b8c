# A .py input alone is a lint request (argparse type=bool): no job is checked.
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--flag", type=int, default=0)
