/* test-shscan.c — launch-script flag extraction (lib/shell/). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shell-fixture.h"

/* The script run with arguments args. */
static void
scan_args_ok(const char *text, const char *args)
{
	struct mcinit_err err = {0};

	mcinit_shscan_destroy(&S);
	cr_assert_eq(mcinit_shscan_parse_args(text, strlen(text), args, &S, &err), 0,
	             "parse failed: %s", err.msg);
}

TestSuite(shscan, .fini = teardown);

/* Asserts word k is text at line:col, from variable var (NULL: literal). */
static void
word_is(size_t k, const char *text, int line, int col, const char *var)
{
	cr_assert_lt(k, S.nwords, "word %zu missing (only %zu)", k, S.nwords);
	cr_assert_str_eq(S.words[k].text, text, "word %zu", k);
	cr_assert_eq(S.words[k].line, line, "word %zu (%s) line %d", k, text, S.words[k].line);
	cr_assert_eq(S.words[k].col, col, "word %zu (%s) col %d", k, text, S.words[k].col);
	if (var == NULL)
		cr_assert_null(S.words[k].var, "word %zu (%s) var %s", k, text, S.words[k].var);
	else
		cr_assert(S.words[k].var && strcmp(S.words[k].var, var) == 0,
		          "word %zu (%s) var %s, want %s", k, text,
		          S.words[k].var ? S.words[k].var : "NULL", var);
}

/* A launch script in the style of Megatron-LM's examples/gpt3 scripts. */
static const char gpt_script[] =
    "#!/bin/bash\n"                                                /* 1 */
    "\n"                                                           /* 2 */
    "# Runs the \"175B\" parameter model\n"                        /* 3 */
    "export CUDA_DEVICE_MAX_CONNECTIONS=1\n"                       /* 4 */
    "\n"                                                           /* 5 */
    "GPUS_PER_NODE=8\n"                                            /* 6 */
    "MASTER_ADDR=localhost\n"                                      /* 7 */
    "MASTER_PORT=6000\n"                                           /* 8 */
    "NUM_NODES=1\n"                                                /* 9 */
    "NODE_RANK=0\n"                                                /* 10 */
    "WORLD_SIZE=$(($GPUS_PER_NODE*$NUM_NODES))\n"                  /* 11 */
    "\n"                                                           /* 12 */
    "CHECKPOINT_PATH=$1 #<Specify path>\n"                         /* 13 */
    "VOCAB_FILE=$3 #<Specify path to file>/gpt2-vocab.json\n"      /* 14 */
    "DATA_PATH=$5 #<Specify path and file prefix>_text_document\n" /* 15 */
    "\n"                                                           /* 16 */
    "DISTRIBUTED_ARGS=(\n"                                         /* 17 */
    "    --nproc_per_node $GPUS_PER_NODE \n"                       /* 18 */
    "    --nnodes $NUM_NODES \n"                                   /* 19 */
    "    --master_addr $MASTER_ADDR \n"                            /* 20 */
    ")\n"                                                          /* 21 */
    "\n"                                                           /* 22 */
    "GPT_MODEL_ARGS=(\n"                                           /* 23 */
    "    --num-layers 96 \n"                                       /* 24 */
    "    --hidden-size 12288 \n"                                   /* 25 */
    "    # --num-attention-heads 64\n"                             /* 26 */
    "    --seq-length 2048 \n"                                     /* 27 */
    ")\n"                                                          /* 28 */
    "\n"                                                           /* 29 */
    "TRAINING_ARGS=(\n"                                            /* 30 */
    "    --micro-batch-size 1 \n"                                  /* 31 */
    "    --lr 6.0e-5 \n"                                           /* 32 */
    "    --lazy-mpu-init False\n"                                  /* 33 */
    ")\n"                                                          /* 34 */
    "\n"                                                           /* 35 */
    "MODEL_PARALLEL_ARGS=(\n"                                      /* 36 */
    "\t--tensor-model-parallel-size 8 \n"                          /* 37 */
    "\t--pipeline-model-parallel-size 16 \n"                       /* 38 */
    ")\n"                                                          /* 39 */
    "\n"                                                           /* 40 */
    "torchrun ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py \\\n"         /* 41 */
    "    ${GPT_MODEL_ARGS[@]} \\\n"                                /* 42 */
    "    ${TRAINING_ARGS[@]} \\\n"                                 /* 43 */
    "    ${MODEL_PARALLEL_ARGS[@]} \\\n"                           /* 44 */
    "    --save $CHECKPOINT_PATH \\\n"                             /* 45 */
    "    --vocab-file \"$VOCAB_FILE\" \\\n"                        /* 46 */
    "    --data-path $DATA_PATH\n";                                /* 47 */

Test(shscan, megatron_gpt_example)
{
	scan_args_ok(gpt_script, "/ckpt /tb 'my vocab.json' /merges /data");
	cr_assert_str_eq(S.script, "pretrain_gpt.py");
	cr_assert_eq(S.script_line, 41);
	cr_assert_eq(S.script_col, 33);
	words_are("--num-layers|96|--hidden-size|12288|--seq-length|2048|--micro-batch-size|1|--lr|"
	          "6.0e-5|--lazy-mpu-init|False|--tensor-model-parallel-size|8|"
	          "--pipeline-model-parallel-size|16|--save|/ckpt|--vocab-file|my vocab.json|"
	          "--data-path|/data");
	word_is(0, "--num-layers", 24, 5, "GPT_MODEL_ARGS");
	word_is(1, "96", 24, 18, "GPT_MODEL_ARGS");
	word_is(4, "--seq-length", 27, 5, "GPT_MODEL_ARGS");
	word_is(11, "False", 33, 21, "TRAINING_ARGS");
	word_is(12, "--tensor-model-parallel-size", 37, 2, "MODEL_PARALLEL_ARGS");
	word_is(16, "--save", 45, 5, NULL);
	/* an argument's words are placed where the script expands them */
	word_is(17, "/ckpt", 13, 17, "CHECKPOINT_PATH");
	cr_assert_not(S.words[17].opaque);
	word_is(19, "my vocab.json", 14, 12, "VOCAB_FILE");
	cr_assert_eq(S.nnotes, 0);
	/* without its arguments (no --script-args): the user gives them at
	 * launch, so each is a value only the run knows, never an empty word
	 * that would make --save take the next flag; one note says so */
	scan_ok(gpt_script);
	cr_assert_eq(S.nnotes, 1);
	cr_assert_eq(S.notes[0].line, 13);
	cr_assert_eq(S.notes[0].col, 17);
	cr_assert(strstr(S.notes[0].msg, "arguments are known only at run time") != NULL, "%s",
	          S.notes[0].msg);
	cr_assert(strstr(S.notes[0].msg, "--script-args") != NULL, "%s", S.notes[0].msg);
	cr_assert_eq(S.nwords, 22);
	cr_assert_str_eq(S.words[16].text, "--save");
	word_is(17, "$1", 13, 17, "CHECKPOINT_PATH");
	cr_assert(S.words[17].opaque);
	cr_assert_str_eq(S.words[18].text, "--vocab-file");
	cr_assert(S.words[19].opaque);
	cr_assert_str_eq(S.words[20].text, "--data-path");
	cr_assert(S.words[21].opaque);
}

/* Issue 39, class 1: the script's arguments, not given to mcinit, are known
 * only at run time: $N, ${N}, "$@", $*, $#, ${#}, `for a;`, shift; a
 * default ${N:-WORD} / ${N-WORD} is WORD; one note for all of them. */
Test(shscan, arguments_not_given_are_known_only_at_run_time)
{
	scan_ok("#!/bin/bash\n"
	        "A=$1; B=${2}; C=${3:-8}; D=${4-x}; E=${5:+y}; F=${6:?usage}\n"
	        "N=$#; M=${#}; shift 2\n"
	        "for a; do G=$a; done\n"
	        "python pretrain_gpt.py --a $A --b $B --c $C --d $D --e $E --f $F --n $N --m $M "
	        "--g $G --at \"$@\" --st $* --one $1\n");
	words_are("--a|$1|--b|${2}|--c|8|--d|x|--e|${5:+y}|--f|${6:?usage}|--n|$#|--m|${#}|"
	          "--g|\"$@\"|--at|$@|--st|$*|--one|$1");
	for (size_t k = 0; k < S.nwords; k++)
		cr_assert(S.words[k].opaque == (k % 2 == 1 && k != 5 && k != 7), "word %zu: %s", k,
		          S.words[k].text);
	cr_assert_eq(S.nnotes, 1);
	cr_assert_eq(S.notes[0].line, 2);
	cr_assert_eq(S.notes[0].col, 3);
	/* an empty default is no value: the argument, known only at run time */
	scan_ok("python pretrain_gpt.py --a \"${1:-}\" --b ${2-}\n");
	words_are("--a|${1:-}|--b|${2-}");
	cr_assert(S.words[1].opaque && S.words[3].opaque);
	/* given (--script-args, even none): exactly bash's words */
	scan_args_ok("#!/bin/bash\n"
	             "A=$1; C=${3:-8}\n"
	             "python pretrain_gpt.py --a $A --c $C \"$@\" --n $#\n",
	             "");
	words_are("--a|--c|8|--n|0");
	scan_args_ok("#!/bin/bash\n"
	             "A=$1; C=${3:-8}\n"
	             "python pretrain_gpt.py --a $A --c $C \"$@\" --n $#\n",
	             "1 '' 3");
	words_are("--a|1|--c|3|1||3|--n|3");
}

Test(shscan, string_variables_split_with_positions)
{
	scan_ok("N=24\n"
	        "ARGS=\"--num-layers $N --hidden-size 1024\"\n"
	        "python pretrain_gpt.py $ARGS --quoted \"$ARGS\"\n");
	words_are("--num-layers|24|--hidden-size|1024|--quoted|--num-layers 24 --hidden-size 1024");
	word_is(0, "--num-layers", 2, 7, "ARGS");
	word_is(1, "24", 1, 3, "N");
	word_is(2, "--hidden-size", 2, 23, "ARGS");
	word_is(3, "1024", 2, 37, "ARGS");
	word_is(4, "--quoted", 3, 30, NULL);
	word_is(5, "--num-layers 24 --hidden-size 1024", 2, 7, "ARGS");
	cr_assert_eq(S.nnotes, 0);
}

Test(shscan, array_expansion_forms)
{
	scan_ok("A=(\"a b\" \"\" c)\n"
	        "python run.py \"${A[@]}\" / ${A[@]} / \"${A[*]}\" / x\"${A[@]}\"y / ${A[1]}z / "
	        "\"${A[-1]}\" / $A / ${A[7]} / \"${A[7]}\"\n");
	words_are("a b||c|/|a|b|c|/|a b  c|/|xa b||cy|/|z|/|c|/|a|b|/|/|");
	word_is(1, "", 1, 10, "A"); /* the empty element points at its quotes */
	word_is(2, "c", 1, 13, "A");
}

Test(shscan, empty_array_quoted_at_gives_no_word)
{
	scan_ok("E=()\nS=\npython t.py \"${E[@]}\" \"${E[*]}\" \"$S\" $S \"\" ''\n");
	cr_assert_eq(S.nwords, 4, "%s", joined());
	word_is(0, "", 3, 24, "E"); /* "${E[*]}" of an empty array: at the `$` */
	word_is(1, "", 2, 3, "S");  /* "$S": the empty value of S=, at its place */
	word_is(2, "", 3, 41, NULL);
	word_is(3, "", 3, 44, NULL);
}

Test(shscan, appends_and_export_declare)
{
	scan_ok("ARGS=(--a 1)\n"
	        "ARGS+=(\n"
	        "  --b 2  # trailing comment\n"
	        ")\n"
	        "S=\"--c\"\n"
	        "S+=\" 3\"\n"
	        "export E=\"--e 5\"\n"
	        "declare -a D=(--d 4)\n"
	        "local L=--l\n"
	        "readonly R=7\n"
	        "python pretrain.py ${ARGS[@]} $S ${D[@]} $E $L $R\n");
	words_are("--a|1|--b|2|--c|3|--d|4|--e|5|--l|7");
	word_is(2, "--b", 3, 3, "ARGS");
	word_is(5, "3", 6, 6, "S");
	word_is(6, "--d", 8, 15, "D");
	word_is(8, "--e", 7, 11, "E");
}

Test(shscan, accumulating_string_pattern)
{
	scan_ok("X=1\nOPTS=\"\"\n"
	        "OPTS=\"$OPTS --fp16\"\n"
	        "if [ \"$X\" = 1 ]; then\n"
	        "  OPTS=\"$OPTS --bf16\"\n"
	        "fi\n"
	        "python pretrain_gpt.py $OPTS\n");
	words_are("--fp16|--bf16");
	word_is(0, "--fp16", 3, 13, "OPTS");
	word_is(1, "--bf16", 5, 15, "OPTS");
}

Test(shscan, conditions_decided_as_bash_does)
{
	scan_ok("if [ \"$NEVER_SET\" = 1 ]; then A=(--a); elif [[ 2 -gt 1 ]] && [ -n x ]; then\n"
	        "A=(--b); else A=(--c); fi\n"
	        "if [ -f /some/file ]; then A+=(--f); fi\n"
	        "case $K in x) A+=(--x) ;; *) A+=(--any) ;; esac\n"
	        "python p.py \"${A[@]}\"\n");
	words_are("--b|--f|--any");
	cr_assert_geq(note_with("known only when the script runs"), 0, "-f is not decided here");
}

Test(shscan, default_expansions)
{
	scan_ok("NL=${NUM_LAYERS:-24}\n"
	        "H=4096\n"
	        ": ${HEADS:=32}\n"
	        "python pretrain_gpt.py --num-layers $NL --hidden-size ${H:-1} "
	        "--num-attention-heads $HEADS --x ${EMPTY-} --y \"${UNSET:-a b}\" ${Z:-c d}\n");
	words_are("--num-layers|24|--hidden-size|4096|--num-attention-heads|32|--x|--y|a b|c|d");
	word_is(1, "24", 1, 18, "NL");
	word_is(3, "4096", 2, 3, "H");
	word_is(5, "32", 3, 12, "HEADS");
	cr_assert_geq(note_with("NUM_LAYERS is not assigned"), 0);
	cr_assert_geq(note_with("HEADS is not assigned"), 0);
	cr_assert_eq(note_with("`${H:-1}`"), -1, "a set variable needs no note");
}

Test(shscan, unexpandable_words_kept_as_written)
{
	scan_ok("python pretrain_gpt.py --seed $0 --save \"$!\" --d $(date +%s) --e `hostname` "
	        "--f $((++X)) --g ${UNDEF} --h $UNDEF2/x --i ${#A[@]} --j ${P/a/b}\n");
	words_are("--seed|$0|--save|$!|--d|$(date +%s)|--e|`hostname`|--f|$((++X))|--g|${UNDEF}|"
	          "--h|$UNDEF2/x|--i|${#A[@]}|--j|${P/a/b}");
	for (size_t k = 1; k < S.nwords; k += 2)
		cr_assert(S.words[k].opaque, "word %zu %s", k, S.words[k].text);
	for (size_t k = 0; k < S.nwords; k += 2)
		cr_assert_not(S.words[k].opaque, "word %zu %s", k, S.words[k].text);
	cr_assert_eq(S.nnotes, 9);
	cr_assert_geq(note_with("command substitution"), 0);
	cr_assert_geq(note_with("arithmetic"), 0);
	cr_assert_geq(note_with("not assigned in this script"), 0);
	word_is(5, "$(date +%s)", 1, 50, NULL);
}

Test(shscan, script_path_from_command_substitution)
{
	scan_ok("DIR=$(dirname \"$0\")\n"
	        "python $DIR/../pretrain_gpt.py --num-layers 2\n");
	cr_assert_str_eq(S.script, "$(dirname \"$0\")/../pretrain_gpt.py");
	words_are("--num-layers|2");
}

Test(shscan, comments_quotes_and_escapes)
{
	scan_ok("python train.py --a 'x # y' --b \"#z\" c#d \\#e # real comment --no\n"
	        "python other.py\n");
	words_are("--a|x # y|--b|#z|c#d|#e");
	scan_ok("python train.py --msg \"say \\\"hi\\\" \\$HOME \\n\" --sp a\\ b $'tab\\there' "
	        "--dq \"a\"'b'c\n");
	words_are("--msg|say \"hi\" $HOME \\n|--sp|a b|tab\there|--dq|abc");
	scan_ok("python t.py $'\\x41\\xZ\\q' $'' \"\" x$'\\047'\n");
	words_are("A\\xZ\\q|||x'");
}

Test(shscan, continuations)
{
	scan_ok("python \\\n  pretrain_gpt.py \\\n  --num-\\\nlayers 2 \\\n  \"--quo\\\nted\"\n");
	words_are("--num-layers|2|--quoted");
	word_is(0, "--num-layers", 3, 3, NULL);
	word_is(2, "--quoted", 5, 4, NULL);
	/* a backslash ending a comment does not continue it */
	scan_ok("# comment \\\npython t.py --x\n");
	words_are("--x");
}

Test(shscan, redirections_pipes_and_lists)
{
	scan_ok("cd /work && python pretrain_gpt.py --a 1 2>&1 > out.log --b <in.txt "
	        "&>>all.log --c | tee log.txt; echo done\n");
	words_are("--a|1|--b|--c");
	scan_ok("python train.py --x >(tee a) --y 1>/dev/null 2> err <<< \"here string\"\n");
	words_are("--x|--y");
}

Test(shscan, heredoc_bodies_are_skipped)
{
	scan_ok("cat > cfg.yaml <<EOF\n"
	        "python fake_train.py --bad\n"
	        "EOF\n"
	        "cat <<-'END' | grep x\n"
	        "\tpython fake2_train.py --bad2\n"
	        "\tEND\n"
	        "python train.py --good\n");
	words_are("--good");
	cr_assert_eq(S.script_line, 7);
	cr_assert_eq(note_with("here-document"), -1);
	scan_ok("cat <<EOF\npython t.py --x\n");
	cr_assert_null(S.script);
	cr_assert_geq(note_with("here-document delimited by `EOF`"), 0);
}

Test(shscan, non_runners_and_keywords)
{
	scan_ok("echo \"running pretrain_gpt.py\"\n"
	        "echo pretrain_gpt.py --no\n"
	        "ls *.py\n"
	        "for f in a.py b.py; do\n"
	        "  true\n"
	        "done\n"
	        "if true; then\n"
	        "  time python3 -u pretrain_gpt.py --yes 1\n"
	        "fi\n");
	cr_assert_str_eq(S.script, "pretrain_gpt.py");
	cr_assert_eq(S.script_line, 8);
	words_are("--yes|1");
}

Test(shscan, prefers_training_script)
{
	scan_ok("python tools/preprocess_data.py --input x.json --workers 4\n"
	        "CUDA_DEVICE_MAX_CONNECTIONS=1 torchrun --nproc_per_node 8 pretrain_t5.py --y 2\n"
	        "python tools/checkpoint/convert.py --z 3\n");
	cr_assert_str_eq(S.script, "pretrain_t5.py");
	words_are("--y|2");
	cr_assert_geq(note_with("3 commands run Python scripts"), 0);
	scan_ok("python a.py --a\npython b.py --b\n");
	cr_assert_str_eq(S.script, "a.py");
	words_are("--a");
}

Test(shscan, python_command_built_in_a_variable)
{
	scan_ok("ARGS=(--tp 2)\n"
	        "CMD=\"python -m torch.distributed.run --nproc_per_node 8 pretrain_gpt.py "
	        "${ARGS[*]} --pp 4\"\n"
	        "srun $CMD\n");
	cr_assert_str_eq(S.script, "pretrain_gpt.py");
	cr_assert_eq(S.script_line, 2);
	words_are("--tp|2|--pp|4");
	word_is(0, "--tp", 1, 7, "ARGS");
	word_is(2, "--pp", 2, 84, "CMD");
}

Test(shscan, fallback_without_python_command)
{
	scan_ok("DISTRIBUTED_ARGS=\"--nproc_per_node 8 --nnodes 1\"\n"
	        "MODEL=(\n"
	        "  --num-layers 4 # c\n"
	        "  --hidden-size 256\n"
	        ")\n"
	        "NAME=gpt\n"
	        "TRAIN=\"--lr 1e-4 --fp16\"\n"
	        "ALL=(\"${MODEL[@]}\" --extra)\n"
	        "srun --nodes 2 bash -c \"launch $NAME\"\n");
	cr_assert_null(S.script);
	words_are("--num-layers|4|--hidden-size|256|--lr|1e-4|--fp16|--extra");
	word_is(0, "--num-layers", 3, 3, "MODEL");
	word_is(4, "--lr", 7, 8, "TRAIN");
	word_is(7, "--extra", 8, 20, "ALL");
	cr_assert_eq(note_with("no command in the script runs a *.py file"), 0);
	cr_assert_eq(S.notes[0].line, 0);
}

Test(shscan, empty_and_blank_input)
{
	scan_ok("");
	cr_assert_eq(S.nwords, 0);
	cr_assert_null(S.script);
	cr_assert_eq(S.nnotes, 1);
	scan_ok("\n\n   # only a comment\n");
	cr_assert_eq(S.nwords, 0);
}

Test(shscan, crlf_script)
{
	scan_ok("A=(--x 1\r\n --y 2)\r\npython t.py \\\r\n  ${A[@]} --z\r\n");
	words_are("--x|1|--y|2|--z");
	word_is(2, "--y", 2, 2, "A");
	word_is(4, "--z", 4, 11, NULL);
}

Test(shscan, utf8_columns_count_characters)
{
	scan_ok("A=\"é --x\"\npython t.py --ü $A\n");
	words_are("--ü|é|--x");
	word_is(1, "é", 1, 4, "A");
	word_is(2, "--x", 1, 6, "A");
}

Test(shscan, unset_forgets_a_variable)
{
	scan_ok("V=--x\nunset V\npython t.py $V\n");
	words_are("$V");
	cr_assert(S.words[0].opaque);
}

Test(shscan, data_errors_are_located)
{
	static const struct {
		const char *text;
		const char *msg;
	} bad[] = {
	    {"python t.py 'oops\n", "1:13: unterminated single quote"},
	    {"A=1\npython t.py \"oops\n\n", "2:13: unterminated double quote"},
	    {"A=(--x\n--y\n", "1:3: unterminated array assignment"},
	    {"x $(echo\n", "1:3: unterminated $("},
	    {"x ${A:-b\n", "1:3: unterminated ${"},
	    {"x `date\n", "1:3: unterminated backquote"},
	    {"x $'abc", "1:3: unterminated $'...' quote"},
	};
	struct mcinit_err err = {0};
	struct mcinit_shscan s;

	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		err.code = 0;
		cr_assert_eq(mcinit_shscan_parse(bad[k].text, strlen(bad[k].text), &s, &err), -1,
		             "case %zu", k);
		cr_assert_eq(err.code, MCINIT_E_PARSE);
		cr_assert_str_eq(err.msg, bad[k].msg);
		cr_assert_null(s.words);
		mcinit_shscan_destroy(&s);
	}
	cr_assert_eq(mcinit_shscan_parse("a\nb\0c", 5, &s, &err), -1);
	cr_assert_str_eq(err.msg, "2:2: NUL byte: not a shell script");
}

Test(shscan, deep_nesting_is_refused)
{
	char buf[2048] = "x ";

	for (int k = 0; k < 100; k++)
		strcat(buf, "${A:-");
	for (int k = 0; k < 100; k++)
		strcat(buf, "}");
	struct mcinit_err err = {0};
	struct mcinit_shscan s;

	cr_assert_eq(mcinit_shscan_parse(buf, strlen(buf), &s, &err), -1);
	cr_assert(strstr(err.msg, "nested too deeply") != NULL, "%s", err.msg);
}

Test(shscan, exponential_growth_is_bounded, .timeout = 20)
{
	char buf[4096] = "A=xxxxxxxxxxxxxxxx\n";

	for (int k = 0; k < 40; k++)
		strcat(buf, "A=\"$A$A\"\n");
	strcat(buf, "python t.py --a 1 $A\n");
	scan_ok(buf);
	cr_assert_geq(note_with("expansion stopped"), 0);
	cr_assert_str_eq(S.words[0].text, "--a");
}

Test(shscan, positions_point_into_the_source)
{
	/* property: a word written literally is found at its position */
	scan_ok(gpt_script);
	for (size_t k = 0; k < S.nwords; k++) {
		const char *p = gpt_script;
		int line = 1;

		if (S.words[k].opaque)
			continue;
		while (line < S.words[k].line)
			line += *p++ == '\n';
		cr_assert(
		    strncmp(p + S.words[k].col - 1, S.words[k].text, strlen(S.words[k].text)) == 0,
		    "word %zu %s at %d:%d", k, S.words[k].text, S.words[k].line, S.words[k].col);
	}
}

/* Deterministic random inputs built from shell-ish fragments: the scanner
 * must return 0 or a located MCINIT_E_PARSE, and never crash or hang. */
Test(shscan, random_inputs_never_crash, .timeout = 120)
{
	static const char *const frag[] = {
	    "A=",   "(",  ")",    "\"",  "'", "$",   "{",      "}",   "[@]",     "${A[@]}",
	    "$A",   "\\", "\n",   " ",   "#", "--x", "1",      ".py", "python",  "<<E",
	    "E\n",  ":-", ":=",   "$(",  "`", "+=",  ";",      "|",   "&",       "2>&1",
	    "\r\n", "$'", "\\\n", "${#", "é", "B=(", "\"$@\"", "=",   "export ", "$((",
	};
	const size_t nfrag = sizeof frag / sizeof frag[0];
	uint64_t seed = 0x5eed1234abcdULL;
	char buf[512];

	for (int it = 0; it < 4000; it++) {
		size_t len = 0, nf;
		struct mcinit_err err = {0};
		struct mcinit_shscan s;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		nf = (size_t)(seed >> 33) % 40;
		for (size_t k = 0; k < nf; k++) {
			const char *f;

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			f = frag[(seed >> 33) % nfrag];
			if (len + strlen(f) >= sizeof buf)
				break;
			memcpy(buf + len, f, strlen(f));
			len += strlen(f);
		}
		if (mcinit_shscan_parse(buf, len, &s, &err) < 0) {
			cr_assert_eq(err.code, MCINIT_E_PARSE);
			cr_assert(err.msg[0] >= '1' && err.msg[0] <= '9', "%s", err.msg);
			cr_assert_eq(s.nwords, 0);
		} else {
			for (size_t k = 0; k < s.nwords; k++) {
				cr_assert_not_null(s.words[k].text);
				cr_assert_geq(s.words[k].line, 0);
			}
		}
		mcinit_shscan_destroy(&s);
	}
}

Test(shscan, arithmetic_as_bash_evaluates_it)
{
	scan_ok("N=3 G=8\nW=$(($G*$N))\npython p.py --a $((W / 5)) --b $(( (1 + 2) * 2 ** 3 ** 2 % "
	        "1000 ))"
	        " --c $[0x10 + 010 + 2#11] --d $((N > 2 ? -N : N)) --e $((1 << 62 << 2)) --f $((7 "
	        "/ 0))\n");
	words_are("--a|4|--b|536|--c|27|--d|-3|--e|0|--f|$((7 / 0))");
	cr_assert(S.words[11].opaque);
	cr_assert_geq(note_with("division by 0"), 0);
}

/* Powers by squaring, modulo 2^64 as bash (a fuzzing timeout: one
 * multiplication per unit of the exponent). */
Test(shscan, powers_wrap_and_huge_exponents_are_quick, .timeout = 10)
{
	scan_ok("python p.py --a $((3 ** 41)) --b $((2 ** 9999999999)) --c $((1 ** "
	        "9223372036854775807)) --d $((-3 ** 3))\n");
	words_are("--a|-420491770248316829|--b|0|--c|1|--d|-27");
}

Test(shscan, environment_of_the_job)
{
	scan_ok("export A=1\nB=2\nexport B\nC=3\ndeclare -x D=4\nexport E=5\nunset E\n"
	        "F=6 python p.py --x 1\necho $F\n");
	cr_assert_eq(S.nenv, 5);
	cr_assert_str_eq(S.env[0].name, "A");
	cr_assert_str_eq(S.env[0].value, "1");
	cr_assert_str_eq(S.env[1].name, "B");
	cr_assert_str_eq(S.env[2].name, "D");
	cr_assert_str_eq(S.env[3].name, "E");
	cr_assert_null(S.env[3].value, "unset");
	cr_assert_str_eq(S.env[4].name, "F");
	cr_assert_str_eq(S.env[4].value, "6");
	cr_assert_eq(S.env[3].line, 7);
}

Test(shscan, launcher_world_size)
{
	scan_ok(
	    "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=4\nX=1\n#SBATCH --nodes=9\n"
	    "srun python p.py --x 1\n");
	cr_assert_str_eq(S.launch.launcher, "srun");
	cr_assert_eq(S.launch.world_size, 8, "the #SBATCH after a command is not read");
	mcinit_shscan_destroy(&S);
	scan_ok("torchrun --nnodes=2:4 --nproc-per-node 8 --master_addr=h --master-port 99 p.py\n");
	cr_assert_eq(S.launch.world_size, 32);
	cr_assert_eq(S.launch.nnodes_min, 2);
	cr_assert_str_eq(S.launch.master_addr, "h");
	cr_assert_eq(S.launch.master_port, 99);
	mcinit_shscan_destroy(&S);
	scan_ok("torchrun --nproc_per_node gpu p.py\n");
	cr_assert_eq(S.launch.world_size, 0);
	cr_assert_geq(note_with("not known here"), 0);
}

Test(shscan, split_and_kept_quotes_are_marked)
{
	scan_ok("A=(--s \"0:1 2:3\" \"--split '9,1'\")\npython p.py ${A[@]}\n");
	words_are("--s|0:1|2:3|--split|'9,1'");
	cr_assert(S.words[1].resplit && S.words[2].resplit);
	cr_assert_not(S.words[0].resplit);
	cr_assert(S.words[4].quotes);
	cr_assert_not(S.words[3].quotes);
}

Test(shscan, substitution_evaluated_or_noted_at_its_line)
{
	scan_ok("X=1\n"
	        "f() { printf -- '--a %d' $(($1 * 2)); }\n"
	        "python train.py $( [ \"$X\" = 1 ] && echo --b 2 ) $(f 3) `echo --c` \\\n"
	        "  $( [ \"$X\" = 0 ] && echo --never ) $(hostname)\n");
	words_are("--b|2|--a|6|--c|$(hostname)");
	word_is(0, "--b", 3, 41, NULL);
	cr_assert(S.words[5].opaque);
	cr_assert_geq(note_with("it runs `hostname`"), 0);
	cr_assert_eq(S.notes[note_with("hostname")].line, 4);
}

Test(shscan, loops_and_launches)
{
	scan_ok("A=(1 2)\n"
	        "for i in \"${!A[@]}\"; do python train.py --x ${A[$i]}; done\n"
	        "for ((n = 0; n < 2; n++)); do python train.py --x 1; done\n"
	        "set -- a b c; while [ $# -gt 1 ]; do shift; done\n"
	        "python train.py --last $1\n");
	cr_assert_eq(S.nlaunches, 3); /* --x 1 twice is one launch */
	cr_assert_str_eq(S.launches[1].words[1].text, "2");
	cr_assert_str_eq(S.launches[2].words[1].text, "c");
	cr_assert_eq(S.launches[2].script_line, 5);
}

Test(shscan, slurm_variables_from_sbatch)
{
	scan_ok(
	    "#!/bin/bash\n"
	    "#SBATCH -N 3\n"
	    "#SBATCH --gpus-per-node=8 # comment\n"
	    "python train.py --a $SLURM_NNODES --b $SLURM_GPUS_ON_NODE --c ${SLURM_NTASKS:-none}\n"
	    "#SBATCH --ntasks-per-node 2\n");
	/* no --ntasks: sbatch does not set SLURM_NTASKS; a directive after the
	 * first command is not read */
	words_are("--a|3|--b|8|--c|none");
	cr_assert_eq(S.words[1].line, 2);
	scan_ok("#SBATCH --nodes=2 --ntasks-per-node=4\npython train.py --n $SLURM_NTASKS\n");
	words_are("--n|8");
}

/* ---- other files: source FILE, bash FILE (from memory here) ---- */

/* Whether a note (warn: a warning) at file:line holds what. */
static int
has_note(int warn, int file, int line, const char *what)
{
	for (size_t k = 0; k < S.nnotes; k++)
		if (S.notes[k].warn == warn && S.notes[k].file == file && S.notes[k].line == line &&
		    strstr(S.notes[k].msg, what) != NULL)
			return 1;
	return 0;
}

Test(shscan, source_places_words_in_their_file)
{
	const char *files[] = {"cfg.sh", "# model\nARGS=(--num-layers 2)\nf() { echo x; }\n", NULL};

	scan_files_ok("\nsource cfg.sh\npython train.py \"${ARGS[@]}\" --lr 1\n", files);
	cr_assert_eq(S.nfiles, 1);
	cr_assert_str_eq(S.files[0], "cfg.sh");
	word_is(0, "--num-layers", 2, 7, "ARGS");
	cr_assert_eq(S.words[0].file, 1);
	word_is(2, "--lr", 3, 30, NULL);
	cr_assert_eq(S.words[2].file, 0);
	cr_assert_eq(S.script_file, 0);
	cr_assert_eq(S.script_line, 3);
}

Test(shscan, missing_source_makes_variables_unknown_not_unset)
{
	const char *files[] = {NULL};

	scan_files_ok("V=1\n. ./nope.sh\ntorchrun --nproc_per_node ${G:-8} train.py $M --v $V\n",
	              files);
	cr_assert(has_note(1, 0, 2, "sourced file `./nope.sh` not found"));
	cr_assert_str_eq(S.words[0].text, "$M");
	cr_assert(S.words[0].opaque && S.words[0].unread);
	cr_assert_str_eq(S.words[2].text, "1"); /* assigned before: kept */
	cr_assert_eq(S.launch.nproc_per_node, 0, "${G:-8} is not the default any more");
}

Test(shscan, child_gets_exported_variables_and_args)
{
	const char *files[] = {"c.sh", "python train.py --a ${E:-no} --b ${L:-no} \"$@\"\nE=2\n",
	                       NULL};

	scan_files_ok("export E=1\nL=1\nsrun -N 2 bash -x c.sh x y\necho $E\n", files);
	words_are("--a|1|--b|no|x|y");
	cr_assert_eq(S.words[0].file, 1);
	cr_assert_eq(S.words[0].line, 1);
	cr_assert_str_eq(S.argv[0], "srun");
	cr_assert_eq(S.launch.nnodes, 2);
}

Test(shscan, self_sourcing_file_is_a_warning)
{
	const char *files[] = {"a.sh", "X=1\n. a.sh\n", NULL};

	scan_files_ok(". a.sh\npython train.py --x $X\n", files);
	cr_assert(has_note(1, 1, 2, "is already being read (`a.sh` -> `a.sh`)"));
	words_are("--x|1");
}

Test(shscan, no_reader_reads_no_file)
{
	scan_ok("source ./cfg.sh\npython train.py $M\n");
	cr_assert(has_note(1, 0, 1, "not read (no file is read for a script given as text)"));
	cr_assert(S.words[0].unread);
}

/* A function eval defines is read from eval's string when called (it was
 * read at the same offsets of the script's own text). */
Test(shscan, function_defined_by_eval_is_called)
{
	scan_ok("eval 'f() { python train.py --num-layers \"$1\"; }'\nf 2\n");
	words_are("--num-layers|2");
	word_is(1, "2", 2, 3, NULL);
}

/* ---- bounds: the tool's own, and smaller ones a caller gives ---- */

static void
scan_limited_ok(const char *text, const struct mcinit_shlimits *lim)
{
	struct mcinit_err err = {0};

	mcinit_shscan_destroy(&S);
	cr_assert_eq(mcinit_shscan_parse_limited(text, strlen(text), NULL, NULL, "main.sh", NULL,
	                                         lim, &S, &err),
	             0, "parse failed: %s", err.msg);
}

/* 40000 commands (a C-style for stops after 1000 passes) */
static const char long_loop[] = "for ((i = 0; i < 200; i++)); do\n"
                                "\tfor ((j = 0; j < 200; j++)); do X=$j; done\n"
                                "done\n"
                                "python train.py --x $X\n";

Test(shscan, tool_stops_a_loop_after_10000_commands, .timeout = 30)
{
	scan_ok(long_loop);
	cr_assert_geq(note_with("stopped following function calls and loops after 10000 commands"),
	              0);
	cr_assert(S.partial);
}

Test(shscan, smaller_step_bound_stops_sooner)
{
	const struct mcinit_shlimits lim = {50, 0, 0};

	scan_limited_ok(long_loop, &lim);
	cr_assert_geq(note_with("stopped following function calls and loops after 50 commands"), 0);
	cr_assert(S.partial);
	/* a bound above the tool's is the tool's */
	const struct mcinit_shlimits big = {1000000, 0, 0};

	scan_limited_ok(long_loop, &big);
	cr_assert_geq(note_with("after 10000 commands"), 0);
}

Test(shscan, smaller_budget_stops_expansion_sooner)
{
	const struct mcinit_shlimits lim = {0, 1024, 0};
	const char *text = "A=xxxxxxxxxxxxxxxx\nA=\"$A$A\"\nA=\"$A$A\"\nA=\"$A$A\"\n"
	                   "python t.py --a 1\n";

	scan_ok(text);
	cr_assert_lt(note_with("expansion stopped"), 0, "128 characters: within 2^19");
	scan_limited_ok(text, &lim);
	cr_assert_lt(note_with("expansion stopped"), 0, "and within 1024");
	scan_limited_ok("A=xxxxxxxxxxxxxxxx\nfor k in 1 2 3 4 5 6 7; do A=\"$A$A\"; done\n"
	                "python t.py --a 1 $A\n",
	                &lim);
	cr_assert_geq(note_with("expansion stopped after 1024 characters"), 0);
	cr_assert_str_eq(S.words[0].text, "--a");
}

static int reads;

static char *
read_counted(void *ctx, const char *name, size_t *len, char **path, const char **why)
{
	(void)ctx;
	reads++;
	if (strcmp(name, "missing.sh") == 0) {
		*why = "not found";
		return NULL;
	}
	*path = strdup(strcmp(name, "./c.sh") == 0 ? "c.sh" : name);
	*len = strlen("X=$((X + 1))\n");
	return strdup("X=$((X + 1))\n");
}

Test(shscan, a_file_named_again_is_not_read_again)
{
	struct mcinit_err err = {0};
	const char *text = "X=0\nfor i in 1 2 3 4 5; do . c.sh; . ./c.sh; . missing.sh; done\n"
	                   "python train.py --x $X\n";

	mcinit_shscan_destroy(&S);
	reads = 0;
	cr_assert_eq(mcinit_shscan_parse_with(text, strlen(text), read_counted, NULL, "main.sh",
	                                      NULL, &S, &err),
	             0, "%s", err.msg);
	/* c.sh and ./c.sh once each (the same file), missing.sh each time */
	cr_assert_eq(reads, 2 + 5, "%d reads", reads);
	cr_assert_eq(S.nfiles, 1);
	words_are("--x|10");
}

Test(shscan, smaller_depth_reads_fewer_files)
{
	const char *files[] = {"a.sh", ". b.sh\n", "b.sh", "X=1\n", NULL};
	const struct mcinit_shlimits lim = {0, 0, 1};
	struct mcinit_err err = {0};
	const char *text = ". a.sh\npython train.py --x $X\n";

	scan_files_ok(text, files);
	words_are("--x|1");
	mcinit_shscan_destroy(&S);
	cr_assert_eq(mcinit_shscan_parse_limited(text, strlen(text), read_mem, NULL, "main.sh",
	                                         NULL, &lim, &S, &err),
	             0, "%s", err.msg);
	cr_assert(has_note(1, 1, 1, "not read (files are read within one another 1 deep at most)"));
}

/* ---- issue 36: every recursion of the reader is bounded ---- */

/* pre, then `what` n times, mid, `close` n times, post: the scan fails with
 * a parse error at line:col whose message holds want (never a stack
 * overflow, which kills this test). */
static void
deep_fails(const char *pre, const char *what, const char *mid, const char *close, size_t n,
           const char *post, int line, int col, const char *want)
{
	size_t lw = strlen(what), lc = strlen(close), len = 0;
	char *t = malloc(strlen(pre) + n * (lw + lc) + strlen(mid) + strlen(post) + 1);
	struct mcinit_err err = {0};
	struct mcinit_shscan s = {0};

	len += (size_t)sprintf(t, "%s", pre);
	for (size_t k = 0; k < n; k++, len += lw)
		memcpy(t + len, what, lw);
	len += (size_t)sprintf(t + len, "%s", mid);
	for (size_t k = 0; k < n; k++, len += lc)
		memcpy(t + len, close, lc);
	len += (size_t)sprintf(t + len, "%s", post);
	cr_assert_eq(mcinit_shscan_parse(t, len, &s, &err), -1, "%s%s...: no error", pre, what);
	cr_assert_eq(err.code, MCINIT_E_PARSE);
	cr_assert(strstr(err.msg, want) != NULL, "%s", err.msg);
	cr_assert_eq(err.line, line, "%s%s: %s: line %d", pre, what, err.msg, err.line);
	cr_assert_eq(err.col, col, "%s%s: %s: col %d", pre, what, err.msg, err.col);
	mcinit_shscan_destroy(&s);
	free(t);
}

#define ARITH_DEEP "arithmetic nested too deeply (more than 256 levels)"

Test(shscan, deep_arithmetic_parentheses_are_an_error)
{
	/* 100,000 levels overflowed the stack (exit 139) */
	deep_fails("A=1\necho $(( ", "(", "1", ")", 100000, " ))\n", 2, 6, ARITH_DEEP);
	deep_fails("A=1\nX=\"$[ ", "(", "1", ")", 100000, " ]\"\n", 2, 4, ARITH_DEEP);
	deep_fails("(( ", "(", "1", ")", 100000, " ))\n", 1, 1, ARITH_DEEP);
	deep_fails("for (( i = ", "(", "0", ")", 100000, "; i < 1; i++ )); do :; done\n", 1, 5,
	           ARITH_DEEP);
	deep_fails("echo ${a[", "(", "1", ")", 100000, "]}\n", 1, 6, ARITH_DEEP);
}

Test(shscan, deep_arithmetic_operators_are_an_error)
{
	deep_fails("echo $(( ", "!", "1", "", 1000000, " ))\n", 1, 6, ARITH_DEEP);
	deep_fails("echo $(( ", "~", "1", "", 1000000, " ))\n", 1, 6, ARITH_DEEP);
	deep_fails("echo $(( ", "1 ? ", "1", " : 1", 100000, " ))\n", 1, 6, ARITH_DEEP);
	deep_fails("echo $(( ", "2 ** ", "1", "", 100000, " ))\n", 1, 6, ARITH_DEEP);
}

Test(shscan, deep_nested_arithmetic_expansions_are_an_error)
{
	/* nested $(( in 50 KB of text */
	deep_fails("echo ", "$((", "1", "))", 10000, "\n", 1, 6,
	           "expansions nested too deeply (more than 64 levels)");
}

Test(shscan, arithmetic_within_the_bounds_is_evaluated)
{
	char buf[4096] = "python t.py --n $(( ";

	for (int k = 0; k < 200; k++)
		strcat(buf, "(");
	strcat(buf, "-!0");
	for (int k = 0; k < 200; k++)
		strcat(buf, ")");
	strcat(buf, " )) --m $(( 1 ? 2 ? 3 : 4 : 5 ))\n");
	scan_ok(buf);
	words_are("--n|-1|--m|3");
}

Test(shscan, deep_loops_are_bounded)
{
	/* 300 loops in one another: reaching level d reads d * d / 2
	 * commands, so the bound on commands stops the reading near level 140
	 * (MAX_LOOP_DEPTH, 256, is the guard behind it), with a note, never a
	 * stack overflow */
	char *t = malloc(300 * 40 + 100);

	t[0] = '\0';
	for (int k = 0; k < 300; k++)
		strcat(t, "while true; do ");
	strcat(t, "python t.py --a 1; ");
	for (int k = 0; k < 300; k++)
		strcat(t, "done; ");
	scan_ok(t);
	cr_assert(S.partial);
	cr_assert_geq(note_with("stopped following function calls and loops after 10000"), 0);
	free(t);
}

/* A function cut at the bound on calls: the scan says so even when no
 * launch is found, and the result is partial (flags may be missing). */
Test(shscan, calls_cut_at_the_bound_are_said_and_partial)
{
	scan_ok("f() { if [ \"$1\" -lt 40 ]; then f $(( $1 + 1 )); else\n"
	        "  torchrun pretrain_gpt.py --num-layers 2; fi; }\nf 0\n");
	cr_assert_eq(S.nwords, 0);
	cr_assert(S.partial, "calls cut: flags may be missing");
	long k = note_with("function calls nested more than 32 deep");

	cr_assert_geq(k, 0);
	cr_assert(S.notes[k].bound);
}

/* ---- issue 36: no silently wrong value ---- */

/* Word k is known only at run time (opaque), with a note holding why. */
static void
unknown_word(size_t k, const char *why)
{
	cr_assert_lt(k, S.nwords, "word %zu missing", k);
	cr_assert(S.words[k].opaque, "word %zu (%s) is known", k, S.words[k].text);
	cr_assert_geq(note_with(why), 0, "no note: %s", why);
}

Test(shscan, length_of_a_value_kept_as_written_is_unknown)
{
	/* ${#X} of `$(hostname)` was 11, the length of the source text */
	scan_ok("X=$(hostname)\nA=(a $(hostname) b)\nY=abc\nB=(a b c)\n"
	        "python t.py --a ${#X} --b ${#A[@]} --c ${#A[1]} --d ${#Y} --e ${#B[@]} "
	        "--f ${#A[0]}\n");
	unknown_word(1, "a value known only at run time: its length is too");
	unknown_word(3, "an element known only at run time: the count is too");
	unknown_word(5, "a value known only at run time: its length is too");
	cr_assert_str_eq(S.words[7].text, "3");
	cr_assert_str_eq(S.words[9].text, "3");
	cr_assert_str_eq(S.words[11].text, "1");
}

Test(shscan, counter_of_a_loop_stopped_at_its_bound_is_unknown)
{
	/* N was 100, i 1000 and M 999: the passes mcinit read, not bash's */
	scan_ok("N=0\nwhile true; do N=$((N + 1)); done\n"
	        "for ((i = 0; i < 5000; i++)); do M=$i; done\nK=7\n"
	        "python t.py --n $N --i $i --m $M --k $K\n");
	unknown_word(1, "`N` is changed by a loop mcinit stopped after 100 passes");
	unknown_word(3, "`i` is changed by a loop mcinit stopped after 1000 passes");
	unknown_word(5, "`M` is changed by a loop mcinit stopped after 1000 passes");
	cr_assert_str_eq(S.words[7].text, "7");
	cr_assert(!S.words[7].opaque);
	/* a loop that ends within its bound keeps its values */
	scan_ok("N=0\nwhile [ $N -lt 50 ]; do N=$((N + 1)); done\npython t.py --n $N\n");
	words_are("--n|50");
	cr_assert(!S.words[1].opaque);
}

Test(shscan, count_of_a_cut_array_is_unknown)
{
	/* B lost elements to the expansion budget: its count was 599, exit 0 */
	size_t n = 600 * 1001 + 200;
	char *t = malloc(n);
	size_t len = 0;

	len += (size_t)sprintf(t, "A=(");
	for (int k = 0; k < 600; k++) {
		memset(t + len, 'a', 1000);
		len += 1000;
		t[len++] = ' ';
	}
	len +=
	    (size_t)sprintf(t + len, ")\nB=(\"${A[@]}\")\npython t.py --n ${#B[@]} --m ${#A[@]}\n");
	scan_ok(t);
	unknown_word(1, "a value mcinit cut at one of its bounds");
	cr_assert_str_eq(S.words[3].text, "600");
	cr_assert(S.partial);
	free(t);
}

Test(shscan, array_past_the_word_bound_is_cut_and_said)
{
	size_t len = 0, n = 70000;
	char *t = malloc(n * 2 + 100);

	len += (size_t)sprintf(t, "A=(");
	for (size_t k = 0; k < n; k++)
		t[len++] = 'x', t[len++] = ' ';
	len += (size_t)sprintf(t + len, ")\npython t.py --n ${#A[@]}\n");
	scan_ok(t);
	unknown_word(1, "an array of more than 65536 elements: mcinit keeps the first 65536");
	cr_assert(S.partial);
	free(t);
}

Test(shscan, command_past_the_word_bound_is_an_error)
{
	size_t len = 0, n = 70000;
	char *t = malloc(n * 2 + 100);
	struct mcinit_err err = {0};
	struct mcinit_shscan s = {0};

	len += (size_t)sprintf(t, "X=1\npython t.py");
	for (size_t k = 0; k < n; k++)
		t[len++] = ' ', t[len++] = 'x';
	t[len++] = '\n';
	cr_assert_eq(mcinit_shscan_parse(t, len, &s, &err), -1);
	cr_assert(strstr(err.msg, "a command of more than 65536 words") != NULL, "%s", err.msg);
	cr_assert_eq(err.line, 2);
	cr_assert_eq(err.col, 1);
	mcinit_shscan_destroy(&s);
	free(t);
}

Test(shscan, appends_take_linear_time, .timeout = 20)
{
	/* each A+=(...) copied A to put it back after a command: 20,000 lines
	 * took 34 s */
	size_t n = 100000, len = 0;
	char *t = malloc(n * 12 + 200);

	for (size_t k = 0; k < n; k++)
		len += (size_t)sprintf(t + len, "A+=(--a %zu)\n", k % 10);
	sprintf(t + len, "B=x\nB+=y C=1 true\nA+=(--z 9) B+=z true\n"
	                 "python t.py ${A[@]:0:4} ${#A[@]} $B\n");
	scan_ok(t);
	/* 100,000 appends pass the bound on elements: the count is unknown */
	words_are("--a|0|--a|1|${#A[@]}|x");
	cr_assert(S.words[4].opaque);
	free(t);
}

Test(shscan, prefix_appends_are_undone)
{
	scan_ok("A=(--a 1)\nB=--b\nC=\nA+=(--c 2) B+=x C+=q true\n"
	        "E=(); E+=(--e) true\npython t.py \"${A[@]}\" $B \"$C\" ${#E[@]}\n");
	words_are("--a|1|--b||0");
}

Test(shscan, variables_of_a_sourced_file_not_read_to_its_end_are_unknown)
{
	/* LAYERS=4 was taken although mcinit stopped reading the file */
	static const char *const files[] = {"env.sh", "LAYERS=4\nSIZE=$(( 1 +\n", NULL};

	scan_files_ok("K=2\nsource env.sh\npython t.py --n $LAYERS --s $SIZE --k $K\n", files);
	unknown_word(1, "`LAYERS` is changed by sourced file `env.sh`, which mcinit could not "
	                "read to its end");
	cr_assert(S.words[3].opaque);
	cr_assert_str_eq(S.words[5].text, "2");
}

Test(shscan, brace_expansion_as_bash_does_it)
{
	/* `for i in {1..3}` ran once and `set -- {1..5}` gave one word */
	scan_ok("set -- {1..5}\nN=0\nfor i in {1..3}; do N=$((N + 1)); done\n"
	        "A=({a,b}{1..2})\n"
	        "python t.py $# $N ${#A[@]} x{1,2}y p{A,B{1..2}}q {08..10} {a..e..2} {5..1..2} "
	        "{-1..1} '{1,2}' \"{a,b}\" \\{a,b\\} {a} {} {a, ${U:-{c,d}} {,z} {1..}\n");
	words_are("5|3|4|x1y|x2y|pAq|pB1q|pB2q|08|09|10|a|c|e|5|3|1|-1|0|1|{1,2}|{a,b}|{a,b}|"
	          "{a}|{}|{a,|{c,d}|z|{1..}");
	/* each word keeps the place of what it was made of */
	cr_assert_eq(S.words[3].line, 5);
	cr_assert_eq(S.words[3].col, 28);
	cr_assert_eq(S.words[4].col, 28);
}

Test(shscan, brace_expansion_is_bounded)
{
	struct mcinit_err err = {0};
	struct mcinit_shscan s = {0};
	const char *t = "python t.py {1..100000}\n";

	cr_assert_eq(mcinit_shscan_parse(t, strlen(t), &s, &err), -1);
	cr_assert(strstr(err.msg, "brace expansion of more than 65536 words") != NULL, "%s",
	          err.msg);
	mcinit_shscan_destroy(&s);
	t = "python t.py {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"
	    "{a,b}{a,b}{a,b}\n";
	cr_assert_eq(mcinit_shscan_parse(t, strlen(t), &s, &err), -1);
	mcinit_shscan_destroy(&s);
}

Test(shscan, appended_array_and_fallback_are_bounded, .timeout = 30)
{
	/* 16 MiB of `A+=(--a 1)` kept every element twice: 2.2 GB */
	size_t n = 70000, len = 0;
	char *t = malloc(n * 12 + 100);

	for (size_t k = 0; k < n; k++)
		len += (size_t)sprintf(t + len, "A+=(--a %zu)\n", k % 10);
	sprintf(t + len, "B=${#A[@]}\n");
	scan_ok(t);
	cr_assert(S.partial);
	cr_assert_geq(note_with("an array of more than 65536 elements"), 0);
	cr_assert_geq(note_with("the assignments hold more than 65536 words"), 0);
	cr_assert_leq(S.nwords, 65536);
	free(t);
}

/* Issue 39, class 2: `set` as bash parses it (tests/shell/set-grammar.sh
 * compares generated lines with the real bash). */
static void
set_gives(const char *line, const char *want)
{
	char text[512];

	snprintf(text, sizeof text,
	         "set -- p1 p2\n%s\nA=1\npython pretrain_gpt.py --n \"$#\" --b {x,y} \"$@\"\n",
	         line);
	scan_args_ok(text, "");
	words_are(want);
}

Test(shscan, set_parsed_as_bash_parses_it)
{
	/* an `o` takes the NEXT word as its option name, even in a cluster */
	set_gives("set -euo pipefail", "--n|2|--b|x|y|p1|p2");
	set_gives("set -eo pipefail -u", "--n|2|--b|x|y|p1|p2");
	set_gives("set -ou nounset w", "--n|1|--b|x|y|w");
	set_gives("set -oo errexit nounset w", "--n|1|--b|x|y|w");
	set_gives("set -e -u -o pipefail a b", "--n|2|--b|x|y|a|b");
	/* -o with no name, or one that is an option: lists the options */
	set_gives("set -o", "--n|2|--b|x|y|p1|p2");
	set_gives("set -o -e w", "--n|1|--b|x|y|w");
	set_gives("set +o - w", "--n|1|--b|x|y|w");
	/* -- sets them (to none), - ends the options, a word starts them */
	set_gives("set --", "--n|0|--b|x|y");
	set_gives("set -e --", "--n|0|--b|x|y");
	set_gives("set - -e", "--n|1|--b|x|y|-e");
	set_gives("set -e -", "--n|2|--b|x|y|p1|p2");
	set_gives("set w -e", "--n|2|--b|x|y|w|-e");
	/* errors: nothing changes (an unknown letter, -i, an unknown name, a
	 * letter the getopt pass took for an o's argument, `-o - -Z`) */
	set_gives("set -Z w", "--n|2|--b|x|y|p1|p2");
	set_gives("set -ei w", "--n|2|--b|x|y|p1|p2");
	set_gives("set -o bogus w", "--n|2|--b|x|y|p1|p2");
	set_gives("set -oZ w", "--n|2|--b|x|y|p1|p2");
	set_gives("set -o - -Z w", "--n|2|--b|x|y|p1|p2");
	/* +B / +o braceexpand: no brace expansion */
	set_gives("set +B", "--n|2|--b|{x,y}|p1|p2");
	set_gives("set -e +o braceexpand", "--n|2|--b|{x,y}|p1|p2");
	/* -a / allexport: A is in the command's environment */
	set_gives("set -euao pipefail", "--n|2|--b|x|y|p1|p2");
	cr_assert_eq(S.nenv, 1);
	cr_assert_str_eq(S.env[0].name, "A");
	set_gives("set -a +o allexport", "--n|2|--b|x|y|p1|p2");
	cr_assert_eq(S.nenv, 0);
	/* shopt changes no word here and stops nothing */
	set_gives("shopt -s nullglob extglob; shopt -u nullglob", "--n|2|--b|x|y|p1|p2");
	/* without the script's arguments, `set -euo pipefail` leaves them
	 * known only at run time: `pipefail` is not $1 */
	scan_ok("set -euo pipefail\npython pretrain_gpt.py --micro-batch-size ${1:-1} --n $1\n");
	words_are("--micro-batch-size|1|--n|$1");
	cr_assert(S.words[3].opaque);
}

/* Issue 39, class 3: the working directory and the script's own path. */
static char wd[4096]; /* the directory the scans below run in */

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

/* Scans the script file path (as given on the command line), in wd. */
static void
scan_file_ok(const char *path)
{
	struct mcinit_err err = {0};
	size_t len;
	char *text = mcinit_read_file(path, &len, &err);

	cr_assert_not_null(text, "%s: %s", path, err.msg);
	mcinit_shscan_destroy(&S);
	cr_assert_eq(mcinit_shscan_parse_file(text, len, path, NULL, &S, &err), 0,
	             "parse failed: %s", err.msg);
	free(text);
}

static void
in_temp_dir(void)
{
	char tmpl[] = "/tmp/mcinit-dirs-XXXXXX";

	cr_assert_not_null(mkdtemp(tmpl));
	cr_assert_eq(chdir(tmpl), 0);
	cr_assert_not_null(getcwd(wd, sizeof wd));
	cr_assert_eq(mkdir("proj", 0755), 0);
	cr_assert_eq(mkdir("proj/scripts", 0755), 0);
	cr_assert_eq(mkdir("proj/lib", 0755), 0);
}

/* Removes what the tests below wrote in wd, and wd. */
static void
leave_temp_dir(void)
{
	static const char *const paths[] = {"proj/lib/common.sh",
	                                    "proj/scripts/paths.sh",
	                                    "proj/scripts/run.sh",
	                                    "proj/job.sh",
	                                    "run.sh",
	                                    "proj/scripts",
	                                    "proj/lib",
	                                    "proj"};

	for (size_t k = 0; k < sizeof paths / sizeof *paths; k++)
		remove(paths[k]);
	cr_assert_eq(chdir("/"), 0);
	remove(wd);
}

/* Asserts word k is text, known; a leading "%s" in it stands for wd. */
static void
word_at(size_t k, const char *text)
{
	char want[8192];

	if (strncmp(text, "%s", 2) == 0)
		snprintf(want, sizeof want, "%s%s", wd, text + 2);
	else
		snprintf(want, sizeof want, "%s", text);
	cr_assert_lt(k, S.nwords, "word %zu missing", k);
	cr_assert_str_eq(S.words[k].text, want, "word %zu", k);
	cr_assert_not(S.words[k].opaque, "word %zu (%s) opaque", k, S.words[k].text);
}

Test(shscan, working_directory_as_bash_has_it)
{
	in_temp_dir();
	write_file("proj/lib/common.sh", "COMMON=\"--num-layers 4\"\nLIBDIR=$(dirname "
	                                 "\"${BASH_SOURCE[0]}\")\n");
	write_file("proj/scripts/paths.sh", "SAVE=$PWD/ckpt\n");
	write_file("proj/scripts/run.sh",
	           "#!/bin/bash\n"
	           "ROOT=$(cd \"$(dirname \"$0\")/..\" && pwd)\n"
	           "UP=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")/../lib/..\" && pwd -L)\"\n"
	           "source \"$ROOT/lib/common.sh\"\n"
	           "WORK=$(pwd)\n"
	           "cd \"$ROOT/scripts\"\n"
	           ". ./paths.sh\n"
	           "pushd /tmp >/dev/null; popd >/dev/null\n"
	           "python pretrain_gpt.py $COMMON --a \"$ROOT\" --b \"$UP\" --c \"$LIBDIR\" --d "
	           "\"$WORK\" --e \"${PWD}\" --f \"$OLDPWD\" --g \"$SAVE\" --h \"$0\"\n");
	scan_file_ok("proj/scripts/run.sh");

	word_at(0, "--num-layers");
	word_at(1, "4");
	word_at(3, "%s/proj");
	word_at(5, "%s/proj");
	word_at(7, "%s/proj/lib"); /* BASH_SOURCE in the sourced file: its name */
	word_at(9, "%s");
	word_at(11, "%s/proj/scripts");
	word_at(13, "/tmp"); /* popd: back from /tmp, which is OLDPWD */
	word_at(15, "%s/proj/scripts/ckpt");
	word_at(17, "proj/scripts/run.sh");
	cr_assert_eq(S.nfiles, 2); /* common.sh behind $ROOT, paths.sh after cd */
	leave_temp_dir();
}

Test(shscan, submission_directory_under_slurm)
{
	in_temp_dir();
	write_file("proj/job.sh",
	           "#!/bin/bash\n#SBATCH --nodes=1\n"
	           "python pretrain_gpt.py --a \"$SLURM_SUBMIT_DIR\" --b \"$PWD\"\n");
	scan_file_ok("proj/job.sh");
	word_at(1, "%s");
	word_at(3, "%s");
	write_file("proj/job.sh",
	           "#!/bin/bash\n#SBATCH --chdir=proj\n"
	           "python pretrain_gpt.py --a \"$SLURM_SUBMIT_DIR\" --b \"$PWD\"\n");
	scan_file_ok("proj/job.sh");
	word_at(1, "%s");
	word_at(3, "%s/proj");
	/* no #SBATCH: not a Slurm job, SLURM_SUBMIT_DIR from the environment */
	write_file("proj/job.sh", "python pretrain_gpt.py --a \"$SLURM_SUBMIT_DIR\"\n");
	scan_file_ok("proj/job.sh");
	cr_assert(S.words[1].opaque);
	leave_temp_dir();
}

Test(shscan, directory_only_the_run_has_is_no_error)
{
	in_temp_dir();
	/* a directory of the cluster, not of this machine: cd's status is
	 * unknown, so the launch after && is still read */
	write_file("run.sh",
	           "cd /nonexistent/lustre/project && python pretrain_gpt.py --a \"$PWD\"\n"
	           "cd \"$UNSET_DIR\"\npython pretrain_gpt.py --b \"$PWD\"\n");
	scan_file_ok("run.sh");
	cr_assert_eq(S.nlaunches, 2);
	cr_assert_str_eq(S.launches[0].words[1].text, "/nonexistent/lustre/project");
	cr_assert(S.launches[1].words[1].opaque);
	leave_temp_dir();
	/* not read from a file of this machine: the directory is unknown */
	scan_ok("python pretrain_gpt.py --a \"$PWD\" --b \"$(pwd)\"\n");
	cr_assert(S.words[1].opaque);
	cr_assert(S.words[3].opaque);
}
