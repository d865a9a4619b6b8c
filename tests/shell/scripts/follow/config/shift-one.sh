# Sourced without arguments: the caller's, shifted here for good.
SEEN=$#
shift
