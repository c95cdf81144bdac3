"""ResNet-style CNNs built from torch.nn with random weights (torchvision may be absent): the
ResNet-50 layout (bottleneck blocks 3, 4, 6, 3; widths 64..512 x 4) and a ResNet-18-style one
(basic blocks) for the bf16 and dynamic sets. Batch norms get random running statistics so
inference-mode normalization does real work."""

from __future__ import annotations

import torch
from torch import nn


def _conv_bn(c_in: int, c_out: int, kernel: int, stride: int = 1) -> nn.Sequential:
    conv = nn.Conv2d(c_in, c_out, kernel, stride=stride, padding=kernel // 2, bias=False)
    return nn.Sequential(conv, nn.BatchNorm2d(c_out))


class Basic(nn.Module):
    expansion = 1

    def __init__(self, c_in: int, width: int, stride: int):
        super().__init__()
        self.body = nn.Sequential(
            _conv_bn(c_in, width, 3, stride), nn.ReLU(), _conv_bn(width, width, 3)
        )
        self.skip = _conv_bn(c_in, width, 1, stride) if stride != 1 or c_in != width else None

    def forward(self, x):
        return torch.relu(self.body(x) + (x if self.skip is None else self.skip(x)))


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, c_in: int, width: int, stride: int):
        super().__init__()
        c_out = width * 4
        self.body = nn.Sequential(
            _conv_bn(c_in, width, 1),
            nn.ReLU(),
            _conv_bn(width, width, 3, stride),
            nn.ReLU(),
            _conv_bn(width, c_out, 1),
        )
        self.skip = _conv_bn(c_in, c_out, 1, stride) if stride != 1 or c_in != c_out else None

    def forward(self, x):
        return torch.relu(self.body(x) + (x if self.skip is None else self.skip(x)))


class ResNet(nn.Module):
    def __init__(self, block, layers, widths=(64, 128, 256, 512), classes: int = 1000):
        super().__init__()
        stem = nn.Conv2d(3, widths[0], 7, stride=2, padding=3, bias=False)
        self.stem = nn.Sequential(stem, nn.BatchNorm2d(widths[0]), nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        blocks, c_in = [], widths[0]
        for i, (count, width) in enumerate(zip(layers, widths)):
            for j in range(count):
                blocks.append(block(c_in, width, 2 if i > 0 and j == 0 else 1))
                c_in = width * block.expansion
        self.blocks = nn.Sequential(*blocks)
        self.head = nn.Linear(c_in, classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def _randomize_batch_norm(model: nn.Module) -> nn.Module:
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.1, 0.1)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
    return model.eval()


def resnet50() -> nn.Module:
    return _randomize_batch_norm(ResNet(Bottleneck, (3, 4, 6, 3)))


def resnet18(widths=(64, 128, 256, 512), classes: int = 1000) -> nn.Module:
    return _randomize_batch_norm(ResNet(Basic, (2, 2, 2, 2), widths, classes))
