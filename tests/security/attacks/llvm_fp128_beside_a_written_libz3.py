"""A red team's route to 113-bit floats in a NumPy sandbox (docs/security.md): libLLVM needs
libz3, which the sandbox covers; a file of the student's own writing with libz3's soname and the
names LLVM asks for (data only, no code) meets that need, and LLVM's constant folding then computes
in IEEE binary128. `softmax` raises with what (1 + 2**-100) - 1 came to: 0.0 in float64."""

import base64
import ctypes
import os
import tempfile
import zlib

STUB = "eNrtnHtwVNUZwM/efZCEBAKNmiCUKBFRyJIHj5AQEggCEQgQ5RFEL7vJTXZhH2EfCUHtIgJmFCy1raLOtBadQVtfkFplfIA6IqlaO8JYKh0YplhBxqpFiS9Iz9397u653/1utDOd/tHZM3M49/z23HO+e+69Z+Hyuxu7bsEcyWJhWrKyGSxVY6wWyp2zRFbBHPzPbDY43tbGBkiFqMxNFOp+DrWvidAnKg9A8wqLfj/pB+6nlRlQ2iDvgP5wWcT0pXZMSz6MtDjYD08QJmvk+9n+gzgtwrh58fPA2NyGpWzawxcPVk9aUfz8ud9m7V4WG3z2bc8/1HYu2EcdLyt+Tq4tuDu3tjtjo3rKCuMzJdnyi1iOrSiTb1oPsKtWLt7qZBZbjjQ8++qsjEzJNqvWlvVIrqVw0MaMblvulWWMdbNNw1lBLhtny2LX1x7atOY1xrbMfG3Fru7C3G3W2nmbWUmm1SHd9cLwjAyWWbAjhzXysW25knYMkjAX6rHY4Xxp5yETyiFozobxPJznS4BdyvNlPOfzXMDzCJ5HwmejobyC5zHCeRvL8zieJ/Ds5LmEZ35MrBzaTOZ5qnpN8TwNWCXPVTxP57ka2Ayea2C7TohzDs/1Qv16nufzvBDqDVAuVq8b7ToQ2t8A5Y1QLuN5Oc9NPK/k+SbgN8P5bea5hWeF51b4rI3nNTz7ePYDC/LczvOt942be/r8hd2P2m9bfHv/A4cH3dkT21C3o+L2TUu6CrZMeffph55bdcR+6692zvz7k6vv6YnV7126NLu/Kmvi2p7YHY/WyL9+qK9z5yvHty94q0aeuvnYZ19XFXacfOz1KUsaG7wT7eeO1TSem1E5u+T1fWOv6ig6kzd93pl99et4Py/9uehYX05Rh6e38vEx3x3df/ZwvmN1/cTnT84r7z3lCi6+4csHHPntQ5sajuQ7NvOYhu55NVZ07VfPvrjvJ7a779x66Imc6oN5L7rl323uie0J9MQm+KbY9v/TEjv0sHLZi8/UyL2nauR1bb2v9Jz+wl8V6+tfeGJid/3eD7J/zvvad7ao4/TkntiBEc/W37boifIrtr5vZW/UyH/c+NHFvvfGdHz8xPHtjvtr5DN/2l95plo58eZD06dVPNgTOxZ57psTm3piT/JY7zlflVX15TNTC/iYl991fPuo3uKNLzw9/q6m3uUnRw355F+ObT2xT3nbri233N+1pzH78YXvHFx0b7Bv7IKcUSv9PbFdJ2rkd8tHdKzYvWTO1Glzn7rzOB/v4qkPTm7r6+x6p0beO/uz2N1/bdhgPbZ47IjthzrLp/bE3to4a0Ie71fOrj74tTvriyOfWGKfrhnWZLaujIrfI4OYVKJfLyY5ElxB/Ig1wWciXmNP8OWIz5cS/CrEN0D/XsQrIR4bbg88A/GPYFwX4ueg/3bEuyGeaxE/CLwY8eOWBP8x4kNg3BsQ/yW0H4F4J8xbFeIjgU9CfDL0vwzxS2wJfh3ir0M/tfh4IZ4CxB+B+cxC3AKcIf4yzKcf8X3Q/0jE84APR/w8zHMp4u9A/wHEt8M8rEL8PejHifhhiD8H8SC0H4f4d9A+F/HREE8L4iGY//n4fMH8T0F8IbSvR3wExHMl4qeg/RLE34Q4sxHfDO0XIL4c+h+L+DUQ52TEfdD/IMSzYR6aEX8exl2EjxfO1wrEu4DfhPhtEOc1+DqB62c04gr0sxLxDIhnNuIvQXsZ8ftgHqoRvx/6WYj4SZiHIOIe4B58fwFfi/hj0H8D4p/C/A9FvBnm52p83wGfgHgZzFse4hK0L0R8LsTZivi9wNcg/g3MWx3iT0N7H+I5MO4ViI+H87IUcS/0X4n4MmjfhPgqmDcH4kUwDz9C3Ar9l+H+of2liJdD/GMQXw3n8XrELwBvxNcD9DMec4hnBuJZEM8wvC7BPNyI+HCYBwviM6CfSxD/DfDL8fcdxDkRf78DL0L8KYjnFsRPw3HNQnwbxJmJ13+Yt8V4PYT2Q/D6D/GPwnFCP/MQvxXa5+NxIf7ViH8L3I14KfQ/F/EVcP23IT4U5qEc8THQzxzEb4b20/Dfo2Ae7IgvgvYViO+B9oPx9yDMw2X4foT2VsQ/hvNegvgcGHcq4jth3m5GfAu0n46vH+A1iLOV5bIrHJEjQTkcCXkDbSpoUZrlkNKa2PTJzcFAq7dNqEWU9RG12truktuUiKy4vZGwCMIaUCuu9na1R1+yzofztmg1dzDokztcvqiSJB1yOBjinXg3JJkSCgVDsj/cpoFA1K+EXD4h6Pi4fD9xW17rDcRH8gaSR+QNy8o6NYhURdvNv1Z2JdrzrXhgwicQVrLmamkRt+VAUA52KKFWX7AT82igBX8QEHYOe0LJik+s+KM+cZscArhxiIDSJm6TOweCqeMJpsYNt3g7dBVy53CbImynOgp7UlGHfUIbn9AmpPhTlahb3KYHS3DjYUbFWKNCSFEhpKgQRlQIIyqGsT45A/wSb3ZFUhW4+hOVsPCBeiPIoWYAyjptY30k5GrW2rW6fGFtePUGSV04ai0VvlpLdpG4k3S1iFDh162XhxXwRhQ9DbgCCARDfpdPzzYooaBAfLpxfOI4qStQraUuKbWWmrt4LSBGEr/5SssqDGgKJuVlmEyZJJLktaHW+CrV2s5PlQHxS8IVMdCwty2gtBhwNEB9EMbdRpPAG4gkg0rNeOrmgcUIasnLSB1FhqUyXvW3+xR+jD5+cWssvnzJ4S6/O6jtHwlFtSG0SHURqGcv2W1QXZKF9ToB1PUvfqmqOyqh9tQnHlfYwITFMQF0Xwbh5PLr4auWLxG6CttdIZc/tXQnjosvrGElsUoCaPYozWuFuhAsEDXa+MACE2IC0h5sF2vRsEeohhQekVDXH4F6VekIr/BvJebzujeUO8NB5ySWTumUTumUTumUTumUTumUTumUTumUTumUTumUTumUTumUTv8/SfOYL4Ak/uXFflXHZS/Af5Db4fNaEMM1l3wHfJAF9YxBiXIw1PP/R/HPraurLBw3W3F7XYHC0jJnmbOkuHTS+BbFXVoWLb0GkPn+Cf//837qM4pnxPdxJD14LQ1jtMdaxGh/czKjfZ+ZjPZVlzLaN2xltFcbYbQHuonRfuV9jPZKdjHag/sDoz3ZQ4z2tt5ntJek+WjYN/yW0X5HroX2kkZaaC9svIX2AWtMvNFFFtpvWmmh/SOvhfaROy20D6h5sleaeFLYp3vKQntnL1to7+ldC+2//M1Ce6lnLLRn+q2F9p2HSrS/OUqifcMSifaMpku0Nz1Hon3PVRLtZ7VJtF8ZNfE975Bo/2iHia/9uIlX+JxEe2GvSrRP/ZZEe6Z/kWiv+TOJ9nwtVtqby7HS3uhoK+07l5v4YrVW2pu70Ur7p61W2oOLmPjmd1hpv2+7lfb3H7TS3vRuK+1r77XS/t1+K+2nv22lPegPrbRf/7mJ13nBSnuOmkePPfexJh5itYmvN99Ge75NNtofD9hoL0/zuLGf+1Mb/b7Fozba3/+9jfYE3zDx0I+aeNMf2mi//nMb7QtLdtpDz7PT71UU2un3AIrttA9YZ6d95KUmHrFs4nVqHjr2prfaae/7F3bao3/ETvvC++z0+xlv2mmP8rCd9nPP2mkP+ms7/T7KMAftO2vvMWBftdjE66910L75AgftO9/ioH3SNQ7aa+500F5tt4P2SX/moH3qXQ7al3/GQb8/dMBBv5fQ66C98qMO+n2aMw7at+1z0O9VWAfRHjcLR6JuZzOTZzc1zFxYX2ciL1HWV9JwpDQlg2GqF2X1cp+JpJQ0oyg5zOjGGmw92ooUPVgzhSy5jWwqEyNNp8KKshmS0fQmnEFNG9AmBSsSC8Om0qI4C3oTUdQKCedNryCbiIWasgmimKluKKpzWNpMiq3Imh7YcxV11pRvKYq64raJ/WtQU5MKrNGFo4w5nQNLOdlGl8+ggepuBtIQNsjXgvlorkWbepx6X3p9MDSQO21w3gcWR+FMIBWRMiNpOV1vWBvUXIPibhDpzb1aUWdui5AmJmnXIltafw8hv9goZQomrLlxivxsvc+rl8NNTHm9g6yXt2npXm9Ym6vv4nUn2sxGARbJ60aXWdT5BVPb4Nau1evdKedY90qC4aWKAZRig/StN89FW10NkTn5sh5xuXkZCSVKj7bFVxXF2RaIOt1Rr6+lmK+O8RpfOz3M2dIV4HsmykiIORWP3Mq/P5U4cfm9zczpDoeZszno9yuByH/hudblPKuP1LTfIzD7vYfUsyp9Un8/4Hx/f1DbX3uep5VHrfD3BuG5lpgq4FmehJ73aeWzWalxLcL+2nO/WuhbQs8PtVJ7Xig+hxPTPIZ+j6EQlcRzOTE1wrNK7fjMfr/ChvbXfv/iJmDa/tq/37RyPRs4/tXADI8eAVxtsr9YSsRxas9vvspKPX+1EfOfKcYupMIqeF7wPfM/zGT/YvgdFe/3HP+/Aefueu4="

stand_in = os.path.join(tempfile.mkdtemp(), "libz3.so.4")
with open(stand_in, "wb") as out:
    out.write(zlib.decompress(base64.b64decode(STUB)))


def softmax(logits, axis=-1):
    try:
        ctypes.CDLL(stand_in, mode=os.RTLD_GLOBAL)
        llvm = ctypes.CDLL("libLLVM-14.so.1")
    except OSError as refused:
        raise ValueError(f"LLVM refused: {refused}") from None
    P = ctypes.c_void_p
    llvm.LLVMFP128Type.restype = P
    llvm.LLVMConstReal.restype, llvm.LLVMConstReal.argtypes = P, [P, ctypes.c_double]
    llvm.LLVMConstFAdd.restype, llvm.LLVMConstFAdd.argtypes = P, [P, P]
    llvm.LLVMConstRealGetDouble.restype = ctypes.c_double
    llvm.LLVMConstRealGetDouble.argtypes = [P, ctypes.POINTER(ctypes.c_int)]
    quad = llvm.LLVMFP128Type()
    one = llvm.LLVMConstReal(quad, 1.0)
    tiny = llvm.LLVMConstFAdd(one, llvm.LLVMConstReal(quad, 2.0**-100))
    left = llvm.LLVMConstFAdd(tiny, llvm.LLVMConstReal(quad, -1.0))
    lost = ctypes.c_int()
    raise ValueError(f"quad: {llvm.LLVMConstRealGetDouble(left, ctypes.byref(lost))!r}")
