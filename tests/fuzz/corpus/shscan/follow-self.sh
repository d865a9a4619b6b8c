. ./self.sh
A=(--num-layers 2)
export A
bash ./self.sh
python train.py "${A[@]}"
