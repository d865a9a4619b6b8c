import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--x",
    type=bool)
parser.add_argument("--ok", action="store_true", help="type=bool in a string is fine")
# parser.add_argument("--commented", type=bool)
group = parser.add_argument_group("dist")
group.add_argument(
    "--lazy-mpu-init",
    type = bool,
    required=False,
    help="lazy (see type=bool)",
)
