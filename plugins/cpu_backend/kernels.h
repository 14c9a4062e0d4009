// plugins/cpu_backend/kernels.h — registration entry points of the CPU backend's kernel files.
// Each function adds the kernels of one family for backend "cpu".
#pragma once
#include "ge/sdk/plugin.h"

namespace ge::cpu {

void register_conv_kernels(Registrar& r);         // Conv (oneDNN)
void register_fused_conv_kernels(Registrar& r);   // ge.FusedConv (conv_bias_act, conv_add_act rules)
void register_matmul_kernels(Registrar& r);       // MatMul, Gemm (oneDNN)
void register_norm_kernels(Registrar& r);         // BatchNormalization
void register_pool_kernels(Registrar& r);         // MaxPool, AveragePool, GlobalAveragePool
void register_reduce_kernels(Registrar& r);       // ReduceMean, Softmax
void register_elementwise_kernels(Registrar& r);  // unary math, activations, binary/variadic, comparisons, logic, Where, Cast
void register_tensor_kernels(Registrar& r);       // Reshape Flatten Squeeze Unsqueeze Transpose Concat Slice Gather Shape Constant Identity Dropout
void register_tfidf_kernels(Registrar& r);           // TfIdfVectorizer (from register_tensor_kernels)
void register_split_kernels(Registrar& r);             // Split
void register_fused_elementwise_kernels(Registrar& r);  // ge.FusedElementwise (elementwise_chain rule)
void register_fused_matmul_kernels(Registrar& r);     // ge.FusedMatMul (oneDNN, bias + activation)
void register_fused_norm_kernels(Registrar& r);       // ge.LayerNormalization (+Skip), ge.Gelu (+bias)
void register_fused_attention_kernels(Registrar& r);  // ge.Attention
void register_squeeze_excitation_kernels(Registrar& r);  // ge.SqueezeExcitation (squeeze_excitation rule)
void register_nn_kernels(Registrar& r);  // nn_kernels.cc: ConvTranspose, Resize/Upsample, RNN/GRU/LSTM, normalizations, pools, signal ops

/// precision_pass.cc: `cpu_precision`, the cpu.precision_mode pass (bf16 mixed precision).
std::shared_ptr<Pass> make_cpu_precision_pass();
/// winograd_pass.cc: `cpu_conv_winograd`, 3x3 stride-1 convolutions by Winograd (cpu.conv_algorithm).
std::shared_ptr<Pass> make_cpu_conv_winograd_pass();

}  // namespace ge::cpu
