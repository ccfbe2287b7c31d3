# duckdb 0.8.1's PandasCoreArraysArrowCacheItem::LoadSubtypes and PandasCoreArraysCacheItem::
# LoadSubtypes, instruction for instruction as `objdump -d --start-address=0x1ba6090
# --stop-address=0x1ba6240` prints them from duckdb-0.8.1-cp311-cp311-manylinux_2_17_x86_64
# .manylinux2014_x86_64.whl's duckdb.cpython-311-x86_64-linux-gnu.so; the functions they call
# and libstdc++'s empty string are local stand-ins, the constant is the 16 bytes at 0x244ee90.
# Never loaded: planner reads its bytes. Built with build.sh.
	.section .rodata
	.balign 16
head:	.ascii "pandas.core.arra"
	.ascii "ModifiedMemoryFi"	# the real constant's unterminated neighbour
	.data
	.balign 8
empty_rep:	.quad 0
	.text
	.globl _ZN6duckdb30PandasCoreArraysArrowCacheItem12LoadSubtypesERNS_17PythonImportCacheE
	.type _ZN6duckdb30PandasCoreArraysArrowCacheItem12LoadSubtypesERNS_17PythonImportCacheE, @function
	.balign 16
_ZN6duckdb30PandasCoreArraysArrowCacheItem12LoadSubtypesERNS_17PythonImportCacheE:
	push   %r12
	mov    %rsi,%r12
	xor    %esi,%esi
	push   %rbp
	lea    0x18(%rdi),%rbp
	mov    $0x1e,%edi
	push   %rbx
	sub    $0x10,%rsp
	lea    0x6(%rsp),%rdx
	call   string_create
	movdqa head(%rip),%xmm0
	movabs $0x776f7272612e7379,%rcx
	mov    empty_rep(%rip),%rbx
	lea    0x18(%rax),%rdx
	movups %xmm0,0x18(%rax)
	mov    %rcx,0x10(%rdx)
	mov    $0x6570,%ecx
	movl   $0x7974642e,0x18(%rdx)
	mov    %cx,0x1c(%rdx)
	cmp    %rbx,%rax
	jne    1f
2:	mov    %rdx,0x8(%rsp)
	lea    0x8(%rsp),%rsi
	mov    %r12,%rdx
	mov    %rbp,%rdi
	call   load_module
	add    $0x10,%rsp
	pop    %rbx
	pop    %rbp
	pop    %r12
	ret
1:	movl   $0x0,0x10(%rax)
	movq   $0x1e,(%rax)
	movb   $0x0,0x36(%rax)
	jmp    2b

	.globl _ZN6duckdb25PandasCoreArraysCacheItem12LoadSubtypesERNS_17PythonImportCacheE
	.type _ZN6duckdb25PandasCoreArraysCacheItem12LoadSubtypesERNS_17PythonImportCacheE, @function
	.balign 16
_ZN6duckdb25PandasCoreArraysCacheItem12LoadSubtypesERNS_17PythonImportCacheE:
	push   %r12
	mov    %rsi,%r12
	xor    %esi,%esi
	push   %rbp
	lea    0x18(%rdi),%rbp
	mov    $0x18,%edi
	push   %rbx
	sub    $0x10,%rsp
	lea    0x6(%rsp),%rdx
	call   string_create
	movdqa head(%rip),%xmm0
	mov    empty_rep(%rip),%rbx
	movabs $0x776f7272612e7379,%rcx
	lea    0x18(%rax),%rdx
	movups %xmm0,0x18(%rax)
	mov    %rcx,0x10(%rdx)
	cmp    %rbx,%rax
	jne    1f
2:	mov    %rdx,0x8(%rsp)
	lea    0x8(%rsp),%rsi
	mov    %r12,%rdx
	mov    %rbp,%rdi
	call   load_module
	add    $0x10,%rsp
	pop    %rbx
	pop    %rbp
	pop    %r12
	ret
1:	movl   $0x0,0x10(%rax)
	movq   $0x18,(%rax)
	movb   $0x0,0x30(%rax)
	jmp    2b

string_create:
	ret
load_module:
	ret
	.section .note.GNU-stack,"",@progbits
