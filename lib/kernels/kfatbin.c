/* kfatbin.c — the kernels' fatbin (build-aux/kernel-fatbin.sh) as data in
 * the module: gpu-backend.c hands it to cuModuleLoadData.  The assembler
 * includes the file the build made (MCINIT_KFATBIN, its absolute path),
 * 64-byte aligned (the driver reads the container's 8-byte fields in
 * place), and what made it (MCINIT_KFATBIN_H, the build's too). */
#include "kgpu.h"
#include MCINIT_KFATBIN_H

const char mcinit_kfatbin_ptx_isa[] = MCINIT_KFATBIN_PTX_ISA;
const char mcinit_kfatbin_ptxas[] = MCINIT_KFATBIN_PTXAS;

__asm__(".section .rodata.mcinit_kfatbin,\"a\",%progbits\n"
        ".balign 64\n"
        ".globl mcinit_kfatbin\n"
        ".hidden mcinit_kfatbin\n"
        ".type mcinit_kfatbin, %object\n"
        "mcinit_kfatbin:\n"
        ".incbin \"" MCINIT_KFATBIN "\"\n"
        ".size mcinit_kfatbin, . - mcinit_kfatbin\n"
        ".previous\n");
