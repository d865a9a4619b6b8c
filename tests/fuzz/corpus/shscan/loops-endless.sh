while true; do torchrun train.py --a; done
until false; do eval "eval \"eval x\""; break; done
for ((i=0;i<99999;i++)); do for j in 1 2 3 4 5 6 7 8 9; do f() { bash -c "$0" $i; }; done; done
eval "python train.py --q \"unterminated"
for ((;;)); do :; done
while :; do continue; done
