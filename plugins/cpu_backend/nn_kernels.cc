// plugins/cpu_backend/nn_kernels.cc — registers the neural-network op families that have no
// entry of their own in kernels.h (one line there and in plugin.cc for all of them).
#include "kernels.h"

namespace ge::cpu {

void register_conv_transpose_kernels(Registrar& r);  // conv_transpose.cc: ConvTranspose
void register_resize_kernels(Registrar& r);          // resize.cc: Resize, Upsample
void register_rnn_kernels(Registrar& r);             // rnn.cc: RNN, GRU, LSTM
void register_normalization_kernels(Registrar& r);   // normalization.cc: LayerNormalization, InstanceNormalization, LRN, LpNormalization, MeanVarianceNormalization
void register_loss_kernels(Registrar& r);            // loss.cc: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
void register_signal_kernels(Registrar& r);          // signal.cc: Hann/Hamming/BlackmanWindow, MelWeightMatrix, DFT, STFT
void register_det_kernels(Registrar& r);             // det.cc: Det
void register_grid_sample_kernels(Registrar& r);     // grid_sample.cc: GridSample
void register_roi_kernels(Registrar& r);             // roi.cc: RoiAlign, MaxRoiPool
void register_lp_pool_kernels(Registrar& r);         // pool_lp.cc: LpPool, GlobalLpPool, MaxUnpool

void register_nn_kernels(Registrar& r) {
  register_conv_transpose_kernels(r);
  register_resize_kernels(r);
  register_rnn_kernels(r);
  register_normalization_kernels(r);
  register_loss_kernels(r);
  register_signal_kernels(r);
  register_det_kernels(r);
  register_grid_sample_kernels(r);
  register_roi_kernels(r);
  register_lp_pool_kernels(r);
}

}  // namespace ge::cpu
