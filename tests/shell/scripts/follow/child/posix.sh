# Run with sh from ../child-exported.sh: PP is not exported there.
python3 pretrain_bert.py $MODEL --pipeline-model-parallel-size ${PP:-3}
