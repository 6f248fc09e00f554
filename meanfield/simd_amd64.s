//go:build amd64 && !purego

#include "textflag.h"

// EDGE_ARGS loads the edge dots' arguments: dst (DI), a and b (R8, R9),
// their strides in bytes (R10, R11), L0 (R12) and n (CX).
#define EDGE_ARGS \
	MOVQ dst+0(FP), DI; \
	MOVQ a+8(FP), R8; \
	MOVQ b+16(FP), R9; \
	MOVQ sa+24(FP), R10; \
	SHLQ $3, R10; \
	MOVQ sb+32(FP), R11; \
	SHLQ $3, R11; \
	MOVQ L0+40(FP), R12; \
	MOVQ n+56(FP), CX

// EDGE_COMBINE adds (s0 + s1) + (s2 + s3) to dst[t] (DI, then moved to
// the next output), the partial sums in X0 (s0, s1) and X2 (s2, s3).
#define EDGE_COMBINE \
	VPERMILPD $1, X0, X3; \
	VADDSD    X3, X0, X4; \
	VPERMILPD $1, X2, X5; \
	VADDSD    X5, X2, X6; \
	VADDSD    X6, X4, X4; \
	VADDSD    (DI), X4, X4; \
	VMOVSD    X4, (DI); \
	ADDQ      $8, DI

// EDGE_SHARED4 adds one block of edgeDots4AVX2's four outputs whose
// operands share one side: S, loaded once, times P0 … P3 into Y0 … Y3
// (the products and sums of the general loop), then moves the four
// outputs' pointers (SI, DX, BX, R13) to the next block.
#define EDGE_SHARED4(S, P0, P1, P2, P3) \
	VMOVUPD S, Y8; \
	VMULPD  P0, Y8, Y4; \
	VADDPD  Y4, Y0, Y0; \
	VMULPD  P1, Y8, Y5; \
	VADDPD  Y5, Y1, Y1; \
	VMULPD  P2, Y8, Y6; \
	VADDPD  Y6, Y2, Y2; \
	VMULPD  P3, Y8, Y7; \
	VADDPD  Y7, Y3, Y3; \
	ADDQ    $32, SI; \
	ADDQ    $32, DX; \
	ADDQ    $32, BX; \
	ADDQ    $32, R13

// func convBlocksAVX2(dst, x, kern *float64, nb, K int)
TEXT ·convBlocksAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ kern+16(FP), DX
	MOVQ nb+24(FP), CX
	MOVQ K+32(FP), R8

block:
	TESTQ CX, CX
	JZ    done
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ   SI, R9
	MOVQ   DX, R10
	MOVQ   R8, R11

tap:
	VBROADCASTSD (R10), Y4
	VMULPD       (R9), Y4, Y5
	VADDPD       Y5, Y0, Y0
	VMULPD       32(R9), Y4, Y6
	VADDPD       Y6, Y1, Y1
	VMULPD       64(R9), Y4, Y7
	VADDPD       Y7, Y2, Y2
	VMULPD       96(R9), Y4, Y8
	VADDPD       Y8, Y3, Y3
	ADDQ         $8, R9
	ADDQ         $8, R10
	DECQ         R11
	JNZ          tap

	VADDPD  (DI), Y0, Y0
	VMOVUPD Y0, (DI)
	VADDPD  32(DI), Y1, Y1
	VMOVUPD Y1, 32(DI)
	VADDPD  64(DI), Y2, Y2
	VMOVUPD Y2, 64(DI)
	VADDPD  96(DI), Y3, Y3
	VMOVUPD Y3, 96(DI)
	ADDQ    $128, DI
	ADDQ    $128, SI
	DECQ    CX
	JMP     block

done:
	VZEROUPPER
	RET

// func stencilAVX2(n, c, m *float64, nb int, d, a float64)
TEXT ·stencilAVX2(SB), NOSPLIT, $0-48
	MOVQ         n+0(FP), DI
	MOVQ         c+8(FP), SI
	MOVQ         m+16(FP), DX
	MOVQ         nb+24(FP), CX
	VBROADCASTSD d+32(FP), Y14
	VBROADCASTSD a+40(FP), Y15

sloop:
	TESTQ   CX, CX
	JZ      sdone
	VMULPD  (SI), Y14, Y0
	VMULPD  (DX), Y15, Y1
	VADDPD  Y1, Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, DX
	DECQ    CX
	JMP     sloop

sdone:
	VZEROUPPER
	RET

// func chainSlicesAVX2(nxt, cur *float64, R, split, j0, j1 int, d, a float64)
//
// For each slice j0 ≤ j ≤ j1 (j0 ≥ 1), top = split + j ≥ 2, rows at
// stride R: nx[0] = d·(cj[0] + cj[1]); nx[q] = d·cj[q+1] + a·cm[q−1]
// for 1 ≤ q ≤ top − 2; nx[top−1] = a·cm[top−2].
TEXT ·chainSlicesAVX2(SB), NOSPLIT, $0-64
	MOVQ         nxt+0(FP), DI
	MOVQ         cur+8(FP), SI
	MOVQ         R+16(FP), R8
	SHLQ         $3, R8             // stride in bytes
	MOVQ         split+24(FP), R9
	MOVQ         j0+32(FP), R10
	MOVQ         j1+40(FP), R11
	VBROADCASTSD d+48(FP), Y14
	VBROADCASTSD a+56(FP), Y15

slice:
	CMPQ R10, R11
	JGT  cdone
	// cj = cur + j·R (AX), cm = cj − R (BX), nx = nxt + j·R (DX).
	MOVQ  R10, R12
	IMULQ R8, R12
	LEAQ  (SI)(R12*1), AX
	MOVQ  AX, BX
	SUBQ  R8, BX
	LEAQ  (DI)(R12*1), DX
	// nx[0] = d·(cj[0] + cj[1])
	VMOVSD (AX), X0
	VADDSD 8(AX), X0, X0
	VMULSD X14, X0, X0
	VMOVSD X0, (DX)
	// The n = top − 2 rows of the stencil, nx[1+q] = d·cj[2+q] + a·cm[q]:
	// AX at cj + 2, BX at cm, DX at nx + 1.
	MOVQ R9, CX
	ADDQ R10, CX
	SUBQ $2, CX
	ADDQ $16, AX
	ADDQ $8, DX

	// Eight rows a pass (two independent quadruples: half the loop
	// overhead), then four, then one.
vec8:
	CMPQ    CX, $8
	JLT     vec
	VMULPD  (AX), Y14, Y0
	VMULPD  (BX), Y15, Y1
	VMULPD  32(AX), Y14, Y2
	VMULPD  32(BX), Y15, Y3
	VADDPD  Y1, Y0, Y0
	VADDPD  Y3, Y2, Y2
	VMOVUPD Y0, (DX)
	VMOVUPD Y2, 32(DX)
	ADDQ    $64, AX
	ADDQ    $64, BX
	ADDQ    $64, DX
	SUBQ    $8, CX
	JMP     vec8

vec:
	CMPQ    CX, $4
	JLT     scal
	VMULPD  (AX), Y14, Y0
	VMULPD  (BX), Y15, Y1
	VADDPD  Y1, Y0, Y0
	VMOVUPD Y0, (DX)
	ADDQ    $32, AX
	ADDQ    $32, BX
	ADDQ    $32, DX
	SUBQ    $4, CX
	JMP     vec

scal:
	TESTQ  CX, CX
	JZ     last
	VMOVSD (AX), X0
	VMULSD X14, X0, X0
	VMOVSD (BX), X1
	VMULSD X15, X1, X1
	VADDSD X1, X0, X0
	VMOVSD X0, (DX)
	ADDQ   $8, AX
	ADDQ   $8, BX
	ADDQ   $8, DX
	DECQ   CX
	JMP    scal

last:
	// nx[top−1] = a·cm[top−2]: BX at cm + top − 2, DX at nx + top − 1.
	VMOVSD (BX), X0
	VMULSD X15, X0, X0
	VMOVSD X0, (DX)
	INCQ   R10
	JMP    slice

cdone:
	VZEROUPPER
	RET

// func slice2AVX2(xb, cb, cu, mb *float64, nb int, pat *[12]float64, inv, a float64)
//
// Two levels a pass of stepSlice2's middle rows, pat = [e0 e1 e0 e1 s0 s1
// s0 s1 α0 α1 α0 α1]: comp = (e0·cu[t] + e1·cu[t+1])·inv per level,
// xb[t+i] = s_i·cb[t+i] + α_i·comp (+ a·mb[t+i] when mb ≠ nil).
TEXT ·slice2AVX2(SB), NOSPLIT, $0-64
	MOVQ         xb+0(FP), DI
	MOVQ         cb+8(FP), SI
	MOVQ         cu+16(FP), DX
	MOVQ         mb+24(FP), BX
	MOVQ         nb+32(FP), CX
	MOVQ         pat+40(FP), AX
	VMOVUPD      (AX), Y10
	VMOVUPD      32(AX), Y11
	VMOVUPD      64(AX), Y12
	VBROADCASTSD inv+48(FP), Y13
	VBROADCASTSD a+56(FP), Y9
	TESTQ        BX, BX
	JZ           nomb

withmb:
	TESTQ     CX, CX
	JZ        s2done
	VMULPD    (DX), Y10, Y1
	VPERMILPD $5, Y1, Y2
	VADDPD    Y2, Y1, Y1
	VMULPD    Y13, Y1, Y1
	VMULPD    (SI), Y11, Y3
	VMULPD    Y1, Y12, Y4
	VADDPD    Y4, Y3, Y3
	VMULPD    (BX), Y9, Y5
	VADDPD    Y5, Y3, Y3
	VMOVUPD   Y3, (DI)
	ADDQ      $32, DI
	ADDQ      $32, SI
	ADDQ      $32, DX
	ADDQ      $32, BX
	DECQ      CX
	JMP       withmb

nomb:
	TESTQ     CX, CX
	JZ        s2done
	VMULPD    (DX), Y10, Y1
	VPERMILPD $5, Y1, Y2
	VADDPD    Y2, Y1, Y1
	VMULPD    Y13, Y1, Y1
	VMULPD    (SI), Y11, Y3
	VMULPD    Y1, Y12, Y4
	VADDPD    Y4, Y3, Y3
	VMOVUPD   Y3, (DI)
	ADDQ      $32, DI
	ADDQ      $32, SI
	ADDQ      $32, DX
	DECQ      CX
	JMP       nomb

s2done:
	VZEROUPPER
	RET

// func drainStepAVX2(ng, acc, src *float64, nb int, pat *[12]float64, w, inv float64) (prev float64)
//
// Two levels a pass of drainCoef2.stepAcc, pat = [s0 s1 s0 s1 a0 a1 a0
// a1 e0 e1 e0 e1], from prev = 0: acc[x+i] += w·g[x+i], ng[x+i] =
// s_i·g[x+i] + a_i·prev, prev = (e0·g[x] + e1·g[x+1])·inv of the level
// before. It returns the last level's prev.
TEXT ·drainStepAVX2(SB), NOSPLIT, $0-64
	MOVQ         ng+0(FP), DI
	MOVQ         acc+8(FP), SI
	MOVQ         src+16(FP), DX
	MOVQ         nb+24(FP), CX
	MOVQ         pat+32(FP), AX
	VMOVUPD      (AX), Y10
	VMOVUPD      32(AX), Y11
	VMOVUPD      64(AX), Y12
	VBROADCASTSD w+40(FP), Y13
	VBROADCASTSD inv+48(FP), Y9
	VXORPD       Y8, Y8, Y8

dloop:
	TESTQ      CX, CX
	JZ         ddone
	VMOVUPD    (DX), Y0
	VMULPD     Y0, Y13, Y1
	VADDPD     (SI), Y1, Y1
	VMOVUPD    Y1, (SI)
	VMULPD     Y0, Y12, Y2
	VPERMILPD  $5, Y2, Y3
	VADDPD     Y3, Y2, Y2
	VMULPD     Y9, Y2, Y2
	VPERM2F128 $0x21, Y2, Y8, Y4
	VMULPD     Y0, Y10, Y5
	VMULPD     Y4, Y11, Y6
	VADDPD     Y6, Y5, Y5
	VMOVUPD    Y5, (DI)
	VMOVAPD    Y2, Y8
	ADDQ       $32, DI
	ADDQ       $32, SI
	ADDQ       $32, DX
	DECQ       CX
	JMP        dloop

ddone:
	VEXTRACTF128 $1, Y8, X0
	VMOVSD       X0, prev+56(FP)
	VZEROUPPER
	RET

// func drainStepLinAVX2(ng, acc, src, cf *float64, nb int, pat *[12]float64, w, inv float64) (prev, f float64)
// drainStepAVX2's pass, plus f += cf[r]·(y(r, 0) + y(r, 1)) level by level
// in order (two scalar adds a pass, as the Go loop makes them).
TEXT ·drainStepLinAVX2(SB), NOSPLIT, $0-80
	MOVQ         ng+0(FP), DI
	MOVQ         acc+8(FP), SI
	MOVQ         src+16(FP), DX
	MOVQ         cf+24(FP), R8
	MOVQ         nb+32(FP), CX
	MOVQ         pat+40(FP), AX
	VMOVUPD      (AX), Y10
	VMOVUPD      32(AX), Y11
	VMOVUPD      64(AX), Y12
	VBROADCASTSD w+48(FP), Y13
	VBROADCASTSD inv+56(FP), Y9
	VXORPD       Y8, Y8, Y8
	VXORPD       Y15, Y15, Y15

dlloop:
	TESTQ        CX, CX
	JZ           dldone
	VMOVUPD      (DX), Y0
	VMULPD       Y0, Y13, Y1
	VADDPD       (SI), Y1, Y1
	VMOVUPD      Y1, (SI)
	VPERMILPD    $5, Y0, Y7
	VADDPD       Y7, Y0, Y7
	VMULSD       (R8), X7, X14
	VADDSD       X14, X15, X15
	VEXTRACTF128 $1, Y7, X7
	VMULSD       8(R8), X7, X7
	VADDSD       X7, X15, X15
	VMULPD       Y0, Y12, Y2
	VPERMILPD    $5, Y2, Y3
	VADDPD       Y3, Y2, Y2
	VMULPD       Y9, Y2, Y2
	VPERM2F128   $0x21, Y2, Y8, Y4
	VMULPD       Y0, Y10, Y5
	VMULPD       Y4, Y11, Y6
	VADDPD       Y6, Y5, Y5
	VMOVUPD      Y5, (DI)
	VMOVAPD      Y2, Y8
	ADDQ         $32, DI
	ADDQ         $32, SI
	ADDQ         $32, DX
	ADDQ         $16, R8
	DECQ         CX
	JMP          dlloop

dldone:
	VEXTRACTF128 $1, Y8, X0
	VMOVSD       X0, prev+64(FP)
	VMOVSD       X15, f+72(FP)
	VZEROUPPER
	RET

// func axpyAVX2(dst, x *float64, nb int, a float64)
TEXT ·axpyAVX2(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         nb+16(FP), CX
	VBROADCASTSD a+24(FP), Y12

axloop:
	TESTQ   CX, CX
	JZ      axdone
	VMULPD  (SI), Y12, Y0
	VADDPD  (DI), Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	DECQ    CX
	JMP     axloop

axdone:
	VZEROUPPER
	RET

// func edgeDotsAVX2(dst, a, b *float64, sa, sb, L0, dL, n int)
//
// For t < n: dst[t] += dot(a + t·sa, b + t·sb) over L0 + t·dL entries,
// each as dot makes it: four partial sums (entry e to sum e mod 4, from
// zero, in order), the entries past the last block of four added to the
// first, then (s0 + s1) + (s2 + s3).
TEXT ·edgeDotsAVX2(SB), NOSPLIT, $0-64
	EDGE_ARGS
	MOVQ dL+48(FP), R13

eout:
	TESTQ  CX, CX
	JZ     edone
	MOVQ   R8, SI
	MOVQ   R9, DX
	MOVQ   R12, AX
	SHRQ   $2, AX               // blocks of four
	MOVQ   R12, BX
	ANDQ   $3, BX               // entries after them
	VXORPD Y0, Y0, Y0
	TESTQ  AX, AX
	JZ     etail

eblk:
	VMOVUPD (SI), Y1
	VMULPD  (DX), Y1, Y1
	VADDPD  Y1, Y0, Y0
	ADDQ    $32, SI
	ADDQ    $32, DX
	DECQ    AX
	JNZ     eblk

etail:
	VEXTRACTF128 $1, Y0, X2     // s2, s3
	TESTQ        BX, BX
	JZ           ecomb

etl:
	VMOVSD (SI), X1
	VMULSD (DX), X1, X1
	VADDSD X1, X0, X0           // s0 += a·b
	ADDQ   $8, SI
	ADDQ   $8, DX
	DECQ   BX
	JNZ    etl

ecomb:
	EDGE_COMBINE
	ADDQ      R10, R8
	ADDQ      R11, R9
	ADDQ      R13, R12
	DECQ      CX
	JMP       eout

edone:
	VZEROUPPER
	RET

// func edgeDots4AVX2(dst, a, b *float64, sa, sb, L0, dL, n int)
//
// edgeDotsAVX2 for the outputs t < 4·ng, four at a time. Output t adds to
// dst[t] the dot product of a + t·sa and b + t·sb over L_t = L0 + t·dL
// entries, as dot makes it: four partial sums, one a lane, over the
// blocks of four, the entries after them into the first, then
// (s0 + s1) + (s2 + s3). One output's blocks are a chain of dependent
// adds; a group's four outputs run their first m = min(L_4g, L_4g+3)/4
// blocks side by side, each in its own register, and each is finished on
// its own (at most one more block, and its entries after the blocks).
// Frame: the four accumulators (0–127), 4m (128) and the output's length
// (136); dL and the group count are read from the arguments.
TEXT ·edgeDots4AVX2(SB), NOSPLIT, $144-64
	EDGE_ARGS

g4out:
	TESTQ CX, CX
	JZ    g4done
	MOVQ  R12, AX
	MOVQ  dL+48(FP), BX
	LEAQ  (BX)(BX*2), BX        // 3·dL
	TESTQ BX, BX
	JGE   g4min
	ADDQ  BX, AX                // the group's last output is the shortest

g4min:
	SHRQ   $2, AX               // m
	LEAQ   (AX*4), BX
	MOVQ   BX, 128(SP)          // 4m
	MOVQ   R8, SI               // output 4g's a
	MOVQ   R9, DX               // … and b; 4g+1 and 4g+2 by index
	LEAQ   (R10)(R10*2), BX
	ADDQ   R8, BX               // output 4g+3's a
	LEAQ   (R11)(R11*2), R13
	ADDQ   R9, R13              // … and b
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	TESTQ  AX, AX
	JZ     g4spill
	// One of the operands is the same for the four outputs at the ends
	// of a convolution (the kernel's start, sa = 0, or x's, sb = 0):
	// loaded once a block, the same products.
	TESTQ  R11, R11
	JZ     g4blkb
	TESTQ  R10, R10
	JZ     g4blka

g4blk:
	VMOVUPD (SI), Y4
	VMULPD  (DX), Y4, Y4
	VADDPD  Y4, Y0, Y0
	VMOVUPD (SI)(R10*1), Y5
	VMULPD  (DX)(R11*1), Y5, Y5
	VADDPD  Y5, Y1, Y1
	VMOVUPD (SI)(R10*2), Y6
	VMULPD  (DX)(R11*2), Y6, Y6
	VADDPD  Y6, Y2, Y2
	VMOVUPD (BX), Y7
	VMULPD  (R13), Y7, Y7
	VADDPD  Y7, Y3, Y3
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, BX
	ADDQ    $32, R13
	DECQ    AX
	JNZ     g4blk
	JMP     g4spill

g4blkb:
	// sb = 0: b shared (DX = R13).
	EDGE_SHARED4((DX), (SI), (SI)(R10*1), (SI)(R10*2), (BX))
	DECQ AX
	JNZ  g4blkb
	JMP  g4spill

g4blka:
	// sa = 0: a shared (SI = BX).
	EDGE_SHARED4((SI), (DX), (DX)(R11*1), (DX)(R11*2), (R13))
	DECQ AX
	JNZ  g4blka

g4spill:
	VMOVUPD Y0, 0(SP)
	VMOVUPD Y1, 32(SP)
	VMOVUPD Y2, 64(SP)
	VMOVUPD Y3, 96(SP)
	MOVQ    R12, 136(SP)        // L of output 4g
	XORQ    BX, BX              // 32·j, output 4g+j; SI, DX its a, b after the m blocks

g4fin:
	VMOVUPD (SP)(BX*1), Y0
	MOVQ    136(SP), R13
	SUBQ    128(SP), R13        // entries left: 0 … 6
	XORQ    AX, AX
	CMPQ    R13, $4
	JLT     g4tail
	VMOVUPD (SI), Y4            // one more block
	VMULPD  (DX), Y4, Y4
	VADDPD  Y4, Y0, Y0
	MOVQ    $32, AX
	SUBQ    $4, R13

g4tail:
	VEXTRACTF128 $1, Y0, X2     // s2, s3
	TESTQ        R13, R13
	JZ           g4comb

g4tl:
	VMOVSD (SI)(AX*1), X1
	VMULSD (DX)(AX*1), X1, X1
	VADDSD X1, X0, X0           // s0 += a·b
	ADDQ   $8, AX
	DECQ   R13
	JNZ    g4tl

g4comb:
	EDGE_COMBINE
	ADDQ      R10, SI           // the next output's a, b and L
	ADDQ      R11, DX
	MOVQ      dL+48(FP), R13
	ADDQ      R13, 136(SP)
	ADDQ      $32, BX
	CMPQ      BX, $128
	JLT       g4fin

	LEAQ (R8)(R10*4), R8        // the next group's a, b and L
	LEAQ (R9)(R11*4), R9
	MOVQ dL+48(FP), BX
	LEAQ (R12)(BX*4), R12
	DECQ CX
	JMP  g4out

g4done:
	VZEROUPPER
	RET
